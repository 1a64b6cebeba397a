import type { LogFields, Logger } from '../util/log.js';

export interface LogRecord {
  readonly level: 'info' | 'warn' | 'error' | 'debug';
  readonly msg: string;
  readonly fields: LogFields;
}

/** A Logger that keeps what it is told, so tests can assert on logging without touching stderr. */
export class RecordingLogger implements Logger {
  constructor(
    readonly records: LogRecord[] = [],
    private readonly base: LogFields = {},
  ) {}

  info(msg: string, fields?: LogFields): void {
    this.push('info', msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    this.push('warn', msg, fields);
  }
  error(msg: string, fields?: LogFields): void {
    this.push('error', msg, fields);
  }
  debug(_v: number, msg: string, fields?: LogFields): void {
    this.push('debug', msg, fields);
  }
  with(fields: LogFields): Logger {
    return new RecordingLogger(this.records, { ...this.base, ...fields });
  }

  at(level: LogRecord['level']): LogRecord[] {
    return this.records.filter((r) => r.level === level);
  }

  private push(level: LogRecord['level'], msg: string, fields: LogFields = {}): void {
    this.records.push({ level, msg, fields: { ...this.base, ...fields } });
  }
}

/** A Logger that drops everything (benchmarks: no log cost, no memory kept). */
export const SILENT_LOGGER: Logger = {
  info() {},
  warn() {},
  error() {},
  debug() {},
  with: () => SILENT_LOGGER,
};
