/**
 * Structured logging: one JSON object per line on stderr (`{"ts","level","msg",...fields}`), or
 * klog-like text when `KPNG_LOG_FORMAT=text`. Verbosity follows kube-proxy's `--v`: info lines at
 * v=0 are always printed, `debug(v, ...)` only when the configured verbosity is at least v.
 */
export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  debug(v: number, msg: string, fields?: LogFields): void;
  with(fields: LogFields): Logger;
}

interface LogConfig {
  verbosity: number;
  format: 'json' | 'text';
  write: (line: string) => void;
}

const config: LogConfig = {
  verbosity: Number(process.env['KPNG_V'] ?? 0) || 0,
  format: process.env['KPNG_LOG_FORMAT'] === 'text' ? 'text' : 'json',
  write: (line) => process.stderr.write(line + '\n'),
};

export function configureLogging(opts: Partial<LogConfig>): void {
  Object.assign(config, opts);
}

function render(level: string, msg: string, fields: LogFields): string {
  if (config.format === 'text') {
    const kv = Object.entries(fields)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v ?? null)}`)
      .join(' ');
    return `${level[0]!.toUpperCase()} ${new Date().toISOString()} ${msg}${kv ? ' ' + kv : ''}`;
  }
  return JSON.stringify({ ts: new Date().toISOString(), level, msg, ...fields }, (_k, v: unknown) =>
    v instanceof Error ? { message: v.message, ...('code' in v ? { code: v.code } : {}) } : v,
  );
}

export function createLogger(base: LogFields = {}): Logger {
  const emit = (level: string, msg: string, fields?: LogFields) =>
    config.write(render(level, msg, { ...base, ...fields }));
  return {
    info: (msg, f) => emit('info', msg, f),
    warn: (msg, f) => emit('warn', msg, f),
    error: (msg, f) => emit('error', msg, f),
    debug: (v, msg, f) => {
      if (config.verbosity >= v) emit('debug', msg, { v, ...f });
    },
    with: (fields) => createLogger({ ...base, ...fields }),
  };
}

export const log = createLogger();
