/**
 * The two line shapes upstream components write (component-base logs): klog's text header and
 * structured key/values, and component-base's JSON (zapr: `ts` in epoch milliseconds, `caller`,
 * `msg`, `v` on info lines, none on error lines).
 */
import { baseName, shortCaller, type CallSite } from './call-site.js';

export type Severity = 'info' | 'warn' | 'error';
export type LogFormat = 'text' | 'json';

export interface LogEntry {
  readonly severity: Severity;
  /** Verbosity of an info line (`debug(v, ...)`); warnings are v=0 info lines in JSON, as klog via logr. */
  readonly v: number;
  readonly msg: string;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly site: CallSite;
  /** Epoch milliseconds, with a fraction. */
  readonly timeMs: number;
  readonly pid: number;
}

const LETTER: Record<Severity, string> = { info: 'I', warn: 'W', error: 'E' };
const two = (n: number) => String(n).padStart(2, '0');

/** `I1128 00:43:01.123456   12345 sync-loop.js:87] "synced" services=3` (local time, as klog). */
export function klogText(e: LogEntry): string {
  const d = new Date(Math.floor(e.timeMs));
  const micros = String(Math.floor((e.timeMs - Math.floor(e.timeMs / 1000) * 1000) * 1000)).padStart(6, '0');
  const header =
    `${LETTER[e.severity]}${two(d.getMonth() + 1)}${two(d.getDate())} ` +
    `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${micros} ` +
    `${String(e.pid).padStart(7)} ${baseName(e.site.path)}:${e.site.line}] `;
  let line = header + JSON.stringify(e.msg);
  for (const [k, value] of Object.entries(e.fields)) line += ` ${k}=${textValue(value)}`;
  return line;
}

/** `{"ts":1795826581123.456,"caller":"sync/sync-loop.js:87","msg":"synced","v":0,"services":3}` */
export function componentBaseJson(e: LogEntry): string {
  const head: Record<string, unknown> = { ts: e.timeMs, caller: shortCaller(e.site), msg: e.msg };
  if (e.severity !== 'error') head['v'] = e.v;
  for (const [k, value] of Object.entries(e.fields)) if (!(k in head)) head[k] = value;
  return JSON.stringify(head, (_k, v: unknown) => (v instanceof Error ? errorText(v) : v));
}

/** klog's value formatting: strings and errors quoted (multi-line strings in `<` blocks), numbers and
 *  booleans bare, nil as `<nil>`; objects as JSON where klog would print Go's `%+v`. */
function textValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (value instanceof Error) return JSON.stringify(errorText(value));
  if (typeof value === 'string') {
    if (!value.includes('\n')) return JSON.stringify(value);
    return `<\n${value
      .split('\n')
      .map((l) => `\t${l}`)
      .join('\n')}\n >`;
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  try {
    return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)) ?? String(value);
  } catch {
    return JSON.stringify(String(value));
  }
}

function errorText(e: Error): string {
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && !e.message.includes(code) ? `${e.message} (${code})` : e.message;
}

/** One line read back (tests, tools that follow a program's log): either shape. */
export interface ParsedLogLine {
  /** JSON lines carry no warning severity (component-base writes warnings as v=0 info lines). */
  readonly severity: Severity;
  readonly v?: number;
  readonly msg: string;
  /** `sync-loop.js:87` (text) or `sync/sync-loop.js:87` (JSON). */
  readonly caller: string;
  /** Text: the key/values as written; JSON: the object. */
  readonly rest: string | Readonly<Record<string, unknown>>;
}

const KLOG_LINE = /^([IWE])\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ (\S+)\] ("(?:[^"\\]|\\.)*")(?: (.*))?$/s;

export function parseLogLine(line: string): ParsedLogLine | undefined {
  if (line.startsWith('{')) {
    let o: unknown;
    try {
      o = JSON.parse(line);
    } catch {
      return undefined;
    }
    if (typeof o !== 'object' || o === null || typeof (o as { msg?: unknown }).msg !== 'string') return undefined;
    const r = o as Record<string, unknown>;
    const v = typeof r['v'] === 'number' ? r['v'] : undefined;
    return {
      severity: v === undefined ? 'error' : 'info',
      ...(v !== undefined ? { v } : {}),
      msg: r['msg'] as string,
      caller: String(r['caller']),
      rest: r,
    };
  }
  const m = KLOG_LINE.exec(line);
  if (!m) return undefined;
  const severity = m[1] === 'E' ? 'error' : m[1] === 'W' ? 'warn' : 'info';
  return { severity, msg: JSON.parse(m[3]!) as string, caller: m[2]!, rest: m[4] ?? '' };
}
