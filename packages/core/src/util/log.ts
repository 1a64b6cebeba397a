/**
 * The one logger of every kpng program, shaped like upstream's (component-base logs): klog text on
 * stderr by default (`I1128 00:43:01.123456   12345 sync-loop.js:87] "synced" services=3`), or
 * component-base's JSON (`--logging-format=json`). The klog header's `file:line` names the JavaScript
 * module that logged and its line. Verbosity follows `-v`: info, warn and error lines always print,
 * `debug(v, ...)` when `-v` is at least v, or when a `--vmodule` rule for the calling module is.
 */
import { callSite } from './call-site.js';
import { componentBaseJson, klogText, type LogEntry, type LogFormat, type Severity } from './log-line.js';
import { vmoduleMatcher, type VModuleMatcher, type VModuleRule } from './vmodule.js';

export type LogFields = Readonly<Record<string, unknown>>;
export type { LogFormat };

export interface Logger {
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  debug(v: number, msg: string, fields?: LogFields): void;
  with(fields: LogFields): Logger;
}

export interface LogSettings {
  readonly verbosity: number;
  readonly vmodule: readonly VModuleRule[];
  readonly format: LogFormat;
  readonly write: (line: string) => void;
  /** Epoch milliseconds with a fraction (tests pin it). */
  readonly now: () => number;
}

const DEFAULTS: LogSettings = {
  verbosity: 0,
  vmodule: [],
  format: 'text',
  write: (line) => void process.stderr.write(line + '\n'),
  now: () => performance.timeOrigin + performance.now(),
};

let settings: LogSettings = DEFAULTS;
let vmodule: VModuleMatcher | undefined;

/** Changes the given settings for every logger (`{}` keeps the others; `resetLogging` restores all). */
export function configureLogging(opts: Partial<LogSettings>): void {
  settings = { ...settings, ...opts };
  vmodule = vmoduleMatcher(settings.vmodule);
}

export function resetLogging(): void {
  configureLogging(DEFAULTS);
}

export function createLogger(base: LogFields = {}): Logger {
  const emit = (severity: Severity, v: number, msg: string, fields: LogFields | undefined, site: LogEntry['site']) => {
    const entry: LogEntry = {
      severity,
      v,
      msg,
      fields: fields ? { ...base, ...fields } : base,
      site,
      timeMs: settings.now(),
      pid: process.pid,
    };
    settings.write(settings.format === 'json' ? componentBaseJson(entry) : klogText(entry));
  };
  const logger: Logger = {
    info: function info(msg, f) {
      emit('info', 0, msg, f, callSite(info));
    },
    warn: function warn(msg, f) {
      emit('warn', 0, msg, f, callSite(warn));
    },
    error: function error(msg, f) {
      emit('error', 0, msg, f, callSite(error));
    },
    debug: function debug(v, msg, f) {
      if (settings.verbosity >= v) return emit('info', v, msg, f, callSite(debug));
      if (vmodule === undefined) return;
      const site = callSite(debug);
      if ((vmodule(site.path) ?? -1) >= v) emit('info', v, msg, f, site);
    },
    with: (fields) => createLogger({ ...base, ...fields }),
  };
  return logger;
}

export const log = createLogger();
