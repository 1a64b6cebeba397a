import type { LogFields, Logger } from '@kpng/core';

/** A Logger that keeps every line, for assertions (and keeps test output quiet). */
export class RecordingLogger implements Logger {
  readonly lines: { readonly level: string; readonly msg: string; readonly fields: LogFields }[];
  readonly #base: LogFields;

  constructor(base: LogFields = {}, lines: RecordingLogger['lines'] = []) {
    this.#base = base;
    this.lines = lines;
  }

  info(msg: string, fields: LogFields = {}): void {
    this.lines.push({ level: 'info', msg, fields: { ...this.#base, ...fields } });
  }
  warn(msg: string, fields: LogFields = {}): void {
    this.lines.push({ level: 'warn', msg, fields: { ...this.#base, ...fields } });
  }
  error(msg: string, fields: LogFields = {}): void {
    this.lines.push({ level: 'error', msg, fields: { ...this.#base, ...fields } });
  }
  debug(_v: number, msg: string, fields: LogFields = {}): void {
    this.lines.push({ level: 'debug', msg, fields: { ...this.#base, ...fields } });
  }
  with(fields: LogFields): Logger {
    return new RecordingLogger({ ...this.#base, ...fields }, this.lines);
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
