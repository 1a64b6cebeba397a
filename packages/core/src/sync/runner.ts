import type { Clock } from '../util/clock.js';
import { toError } from '../util/errors.js';
import { log as defaultLog, type Logger } from '../util/log.js';
import { TokenBucket } from './token-bucket.js';

export interface SyncRunnerOptions {
  /** The work to run; it never runs concurrently with itself. Errors are logged, not rethrown. */
  readonly fn: () => Promise<void>;
  readonly clock: Clock;
  /** Runs beyond the burst are spaced by this much (from the end of the previous run). 0: no limit. */
  readonly minIntervalMs: number;
  /** A run happens at least this long after the previous one ended (or after `start`), requested or not. */
  readonly maxIntervalMs: number;
  /** Runs allowed in short succession before `minIntervalMs` applies; upstream's proxiers use 2. */
  readonly burstRuns?: number;
  readonly log?: Logger;
}

/** kube-proxy's proxiers construct their runner with a burst of 2 (`burstSyncs`). */
export const DEFAULT_BURST_RUNS = 2;

/**
 * Upstream's BoundedFrequencyRunner (`pkg/util/async`), decision for decision:
 *
 * - One timer. `start` arms it for `maxIntervalMs`; every run re-arms it for `maxIntervalMs`.
 * - `run()` and the timer both "try to run": a token bucket (`burstRuns` tokens, refilled at one per
 *   `minIntervalMs`) decides. With a token the function runs now; so a Service and the
 *   EndpointSlice that follows it are programmed at once, not one `minIntervalMs` apart.
 * - Without a token the timer is re-armed for the sooner of "`minIntervalMs` after the last run
 *   ended" and the timer's current due time.
 * - `retryAfter(d)` keeps the soonest requested retry time and pulls the timer in to it, never
 *   pushes it out.
 * - Requests while the function runs collapse into one attempt after it (upstream's channels hold
 *   one signal each); a timer falling due during a run is dropped, as Go's `Reset` drains it.
 *
 * One deliberate difference: where upstream would re-arm for a time at which the bucket still has
 * no token (and so spin on an already-expired timer until it has one), this waits for the token.
 * The run happens at the same moment.
 */
export class SyncRunner {
  readonly #opts: SyncRunnerOptions;
  readonly #log: Logger;
  readonly #limiter: TokenBucket | undefined;
  #timer: { cancel(): void } | undefined;
  #timerDueAt = Number.POSITIVE_INFINITY;
  #lastRunEnd: number;
  /** True from the moment the function is called (synchronously) until it has settled. */
  #busy = false;
  #running: Promise<void> | undefined;
  #runRequested = false;
  #retryAt: number | undefined;
  #started = false;
  #stopped = false;

  constructor(opts: SyncRunnerOptions) {
    if (opts.maxIntervalMs < opts.minIntervalMs) {
      throw new Error(
        `sync runner: maxInterval (${opts.maxIntervalMs} ms) must be >= minInterval (${opts.minIntervalMs} ms)`,
      );
    }
    this.#opts = opts;
    this.#log = opts.log ?? defaultLog;
    const burst = opts.burstRuns ?? DEFAULT_BURST_RUNS;
    this.#limiter = opts.minIntervalMs > 0 ? new TokenBucket(opts.minIntervalMs, burst, opts.clock) : undefined;
    this.#lastRunEnd = Number.NEGATIVE_INFINITY;
  }

  start(): void {
    if (this.#started || this.#stopped) return;
    this.#started = true;
    this.#arm(this.#opts.maxIntervalMs);
    if (this.#retryAt !== undefined) this.#doRetry();
    if (this.#runRequested) {
      this.#runRequested = false;
      this.#tryRun();
    }
  }

  /** Requests a run as soon as possible (at once while the burst lasts). */
  run(): void {
    if (this.#stopped) return;
    if (!this.#started || this.#busy) {
      this.#runRequested = true;
      return;
    }
    this.#tryRun();
  }

  /** Makes sure a run happens no later than `ms` from now (a retry after a failure). */
  retryAfter(ms: number): void {
    if (this.#stopped) return;
    const at = this.#opts.clock.monotonic() + ms;
    if (this.#retryAt !== undefined && this.#retryAt < at) return;
    this.#retryAt = at;
    if (this.#started && !this.#busy) this.#doRetry();
  }

  /** No run starts after this; resolves once the run in progress, if any, has finished. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#cancelTimer();
    await this.#running;
  }

  #tryRun(): void {
    if (this.#stopped || this.#busy) return;
    const clock = this.#opts.clock;
    if (!this.#limiter || this.#limiter.tryAccept()) {
      this.#running = this.#runFn();
      return;
    }
    const now = clock.monotonic();
    const nextPossible = this.#opts.minIntervalMs - (now - this.#lastRunEnd);
    const nextScheduled = Math.min(nextPossible, this.#timerDueAt - now);
    this.#arm(Math.max(nextScheduled, this.#limiter.msUntilToken()));
  }

  async #runFn(): Promise<void> {
    this.#busy = true;
    try {
      await this.#opts.fn();
    } catch (e) {
      this.#log.error('sync runner: run failed', { err: toError(e) });
    }
    this.#lastRunEnd = this.#opts.clock.monotonic();
    this.#busy = false;
    this.#running = undefined;
    if (this.#stopped) return;
    this.#arm(this.#opts.maxIntervalMs);
    if (this.#retryAt !== undefined) this.#doRetry();
    if (this.#runRequested) {
      this.#runRequested = false;
      this.#tryRun();
    }
  }

  #doRetry(): void {
    if (this.#retryAt === undefined) return;
    const now = this.#opts.clock.monotonic();
    const interval = this.#retryAt - now;
    this.#retryAt = undefined;
    if (interval < this.#timerDueAt - now) this.#arm(interval);
  }

  #arm(ms: number): void {
    this.#cancelTimer();
    const delay = Math.max(0, ms);
    this.#timerDueAt = this.#opts.clock.monotonic() + delay;
    this.#timer = this.#opts.clock.setTimeout(() => {
      // An expired timer's Remaining() is <= 0 upstream: without a token, tryRun then waits only
      // for the token, not for a fresh minInterval.
      this.#timer = undefined;
      this.#timerDueAt = this.#opts.clock.monotonic();
      if (!this.#busy) this.#tryRun();
    }, delay);
  }

  #cancelTimer(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#timerDueAt = Number.POSITIVE_INFINITY;
  }
}
