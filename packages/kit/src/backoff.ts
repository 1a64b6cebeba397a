/**
 * Exponential backoff with jitter, capped and resettable: the one schedule for every retry in
 * kpng (the API watch's restarts, the stream client's reconnects, the test clients' retries).
 *
 * The jitter is client-go's (`wait.Backoff.Step` with `wait.Jitter`): the capped delay is
 * multiplied by `1 + jitter * random()`, so it never drops below the schedule and a capped delay
 * spreads over `[maxMs, maxMs * (1 + jitter))`. It is added after the cap on purpose: many nodes
 * that all reached the cap still retry apart instead of in step. A symmetric jitter
 * (`1 ± jitter`, which kpng's stream client used before) keeps the mean on the schedule but lets
 * a retry come sooner than the schedule says; the added one keeps the schedule as a floor.
 */
export interface BackoffOptions {
  /** The first delay. */
  readonly initialMs: number;
  /** The cap of the growing delay, before jitter. Default: no cap. */
  readonly maxMs?: number;
  /** Growth per step; default 2. */
  readonly factor?: number;
  /** Up to this fraction of the delay is added at random; default 0 (none). client-go's reflector uses 1. */
  readonly jitter?: number;
  /**
   * A step asked for more than this long after the previous one starts over from `initialMs`
   * (client-go's backoff manager's reset duration). Default: never (only `reset()`).
   */
  readonly resetAfterMs?: number;
}

/** The delay of step `step` (0 = the first delay) of the schedule, with jitter drawn from `random`. */
export function backoffDelay(step: number, options: BackoffOptions, random: () => number = Math.random): number {
  const { initialMs, maxMs = Infinity, factor = 2, jitter = 0 } = options;
  // The exponent is bounded so that it never overflows to Infinity.
  const base = Math.min(maxMs, initialMs * factor ** Math.min(Math.max(0, step), 1_000));
  return jitter === 0 ? base : base * (1 + jitter * random());
}

export interface BackoffClock {
  /** Monotonic milliseconds (for `resetAfterMs`). Default `performance.now`. */
  readonly now?: () => number;
  /** In [0, 1). Default `Math.random`. */
  readonly random?: () => number;
}

/** The schedule with its state: each `next()` is one failure more, `reset()` starts over. */
export class Backoff {
  readonly #options: BackoffOptions;
  readonly #now: () => number;
  readonly #random: () => number;
  #steps = 0;
  #lastStepAt: number | undefined;

  constructor(options: BackoffOptions, clock: BackoffClock = {}) {
    this.#options = options;
    this.#now = clock.now ?? (() => performance.now());
    this.#random = clock.random ?? Math.random;
  }

  /** Records a failure and returns how long to wait before the next attempt. */
  next(): number {
    const resetAfterMs = this.#options.resetAfterMs;
    const now = this.#now();
    if (resetAfterMs !== undefined && this.#lastStepAt !== undefined && now - this.#lastStepAt > resetAfterMs)
      this.#steps = 0;
    this.#lastStepAt = now;
    return backoffDelay(this.#steps++, this.#options, this.#random);
  }

  /** Failures recorded since the start or the last reset. */
  get failures(): number {
    return this.#steps;
  }

  /** Starts over from `initialMs` at the next failure (the peer proved healthy). */
  reset(): void {
    this.#steps = 0;
    this.#lastStepAt = undefined;
  }
}
