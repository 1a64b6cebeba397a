/**
 * Where a log call was made, for klog's `file:line` and `--vmodule`: the JavaScript module running
 * (`sync-loop.js` in a build, the TypeScript file under the test runner) and its line. One stack frame
 * is captured, above the logger's own frames.
 */
export interface CallSite {
  /** The module's path as the stack names it (`file://` URL or path). */
  readonly path: string;
  readonly line: number;
}

const UNKNOWN: CallSite = { path: '???', line: 1 };
const FRAME = /\(?((?:[a-z]+:\/\/)?[^()\s]*?):(\d+):\d+\)?\s*$/;

export function callSite(above: Function): CallSite {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 1;
  const holder: { stack?: string } = {};
  try {
    Error.captureStackTrace(holder, above);
  } finally {
    Error.stackTraceLimit = limit;
  }
  const frame = holder.stack?.split('\n', 2)[1];
  const m = frame === undefined ? null : FRAME.exec(frame);
  return m ? { path: m[1]!, line: Number(m[2]) } : UNKNOWN;
}

/** `sync-loop.js`: klog's text header names the base name. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** `sync/sync-loop.js`: component-base's JSON `caller` (zap's short caller: the last directory and file). */
export function shortCaller(site: CallSite): string {
  const parts = site.path.split('/');
  return `${parts.slice(-2).join('/')}:${site.line}`;
}
