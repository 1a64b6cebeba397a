import type { Clock } from './clock.js';
import { systemClock } from './clock.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Readonly<Record<string, unknown>>;

/** One structured log record, as written (one JSON object per line). */
export interface LogRecord {
  readonly time: string;
  readonly level: LogLevel;
  readonly msg: string;
  readonly [field: string]: unknown;
}

export type LogSink = (record: LogRecord) => void;

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/**
 * Structured JSON logs: one object per line with `time` (RFC 3339, milliseconds), `level`, `msg`
 * and the fields. Errors become their message. `with()` adds fields to every record.
 */
export class Logger {
  constructor(
    private readonly sink: LogSink,
    private readonly fields: LogFields = {},
    private readonly clock: Clock = systemClock,
    private readonly minLevel: LogLevel = 'info',
  ) {}

  with(fields: LogFields): Logger {
    return new Logger(this.sink, { ...this.fields, ...fields }, this.clock, this.minLevel);
  }

  debug(msg: string, fields: LogFields = {}): void {
    this.write('debug', msg, fields);
  }
  info(msg: string, fields: LogFields = {}): void {
    this.write('info', msg, fields);
  }
  warn(msg: string, fields: LogFields = {}): void {
    this.write('warn', msg, fields);
  }
  error(msg: string, fields: LogFields = {}): void {
    this.write('error', msg, fields);
  }

  private write(level: LogLevel, msg: string, fields: LogFields): void {
    if (LEVELS.indexOf(level) < LEVELS.indexOf(this.minLevel)) return;
    const record: Record<string, unknown> = { time: new Date(this.clock.now()).toISOString(), level, msg };
    for (const [key, value] of Object.entries({ ...this.fields, ...fields })) {
      if (value !== undefined) record[key] = value instanceof Error ? value.message : value;
    }
    this.sink(record as LogRecord);
  }
}

/** Writes each record as one JSON line to a stream (stdout by default). */
export function jsonLineSink(stream: { write(text: string): unknown } = process.stdout): LogSink {
  return (record) => void stream.write(`${JSON.stringify(record)}\n`);
}

/** A logger that drops everything. */
export const silentLogger = new Logger(() => {});

/** Seconds with millisecond precision, for log fields. */
export function seconds(ms: number): number {
  return Math.round(ms) / 1_000;
}
