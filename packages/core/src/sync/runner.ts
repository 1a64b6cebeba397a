import type { Clock } from '../util/clock.js';
import { toError } from '../util/errors.js';
import { log as defaultLog, type Logger } from '../util/log.js';
import { DelayingQueue } from './delaying-queue.js';

export interface SyncRunnerOptions {
  /** The work to run; it never runs concurrently with itself. Errors are logged, not rethrown. */
  readonly fn: () => Promise<void>;
  readonly clock: Clock;
  /** Minimum time from the end of one run to the start of the next. */
  readonly minIntervalMs: number;
  /** A run happens at least this long after the previous one ended (or after `start`), requested or not. */
  readonly maxIntervalMs: number;
  readonly log?: Logger;
}

const SYNC_KEY = 'sync';

/**
 * kube-proxy's WorkQueueRunner (semantics 5.2): a delaying work queue holding one key. `run()` adds
 * the key, so any number of requests during a run collapse into one further run; the worker defers
 * the key until `minIntervalMs` after the previous run ended; a lone request after a quiet period
 * runs at once. Unlike upstream's free-running ticker, the `maxIntervalMs` timer restarts after
 * every run, so a periodic run never lands right behind a requested one.
 */
export class SyncRunner {
  private readonly queue: DelayingQueue<string>;
  private readonly log: Logger;
  private lastRunEnd: number | undefined;
  private maxTimer: { cancel(): void } | undefined;
  private worker: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly opts: SyncRunnerOptions) {
    this.queue = new DelayingQueue<string>(opts.clock);
    this.log = opts.log ?? defaultLog;
  }

  start(): void {
    if (this.worker || this.stopped) return;
    this.armMaxTimer();
    this.worker = this.work();
  }

  /** Requests a run: now if the minimum interval has passed, else as soon as it has. */
  run(): void {
    this.queue.add(SYNC_KEY);
  }

  /** Requests a run after `ms` (e.g. a retry after a failure); an earlier pending request wins. */
  retryAfter(ms: number): void {
    this.queue.addAfter(SYNC_KEY, ms);
  }

  /** No run starts after this; resolves once the run in progress, if any, has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.maxTimer?.cancel();
    await this.queue.shutDownWithDrain();
    await this.worker;
  }

  private async work(): Promise<void> {
    for (let key = await this.queue.get(); key !== undefined; key = await this.queue.get()) {
      try {
        if (!this.stopped) await this.runUnlessTooSoon();
      } finally {
        this.queue.done(key);
      }
    }
  }

  private async runUnlessTooSoon(): Promise<void> {
    const { clock, minIntervalMs } = this.opts;
    if (this.lastRunEnd !== undefined) {
      const elapsed = clock.monotonic() - this.lastRunEnd;
      if (elapsed < minIntervalMs) {
        this.queue.addAfter(SYNC_KEY, minIntervalMs - elapsed);
        return;
      }
    }
    this.maxTimer?.cancel();
    try {
      await this.opts.fn();
    } catch (e) {
      this.log.error('sync runner: run failed', { err: toError(e) });
    }
    this.lastRunEnd = clock.monotonic();
    if (!this.stopped) this.armMaxTimer();
  }

  private armMaxTimer(): void {
    this.maxTimer?.cancel();
    this.maxTimer = this.opts.clock.setTimeout(() => this.run(), this.opts.maxIntervalMs);
  }
}
