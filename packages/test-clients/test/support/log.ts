import type { LogRecord, LogSink } from '../../src/util/log.js';
import { Logger } from '../../src/util/log.js';
import type { Clock } from '../../src/util/clock.js';

/** Keeps log records for assertions; `waitFor` (real time, bounded) for e2e tests. */
export class MemoryLog {
  readonly records: LogRecord[] = [];
  private readonly waiters = new Set<() => void>();
  readonly sink: LogSink = (record) => {
    this.records.push(record);
    for (const wake of [...this.waiters]) wake();
  };

  logger(clock?: Clock): Logger {
    return new Logger(this.sink, {}, clock);
  }

  find(msg: string, fields: Readonly<Record<string, unknown>> = {}): LogRecord[] {
    return this.records.filter((r) => r.msg === msg && Object.entries(fields).every(([k, v]) => r[k] === v));
  }

  /** Resolves with the first record matching, now or later; rejects after `timeoutMs`. */
  waitFor(msg: string, fields: Readonly<Record<string, unknown>> = {}, timeoutMs = 10_000): Promise<LogRecord> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const found = this.find(msg, fields)[0];
        if (found === undefined) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(found);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(
          new Error(
            `no log ${JSON.stringify(msg)} ${JSON.stringify(fields)} within ${timeoutMs} ms; last: ${JSON.stringify(this.records.slice(-5))}`,
          ),
        );
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }
}
