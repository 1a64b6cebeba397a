import type { Clock } from '../util/clock.js';

/** How long an item should wait before it is retried (client-go's `TypedRateLimiter`). */
export interface RateLimiter<T> {
  /** The delay in ms for the item's next retry; each call counts as one more failure. */
  when(item: T): number;
  /** Clears the item's failure history (call after it was processed successfully). */
  forget(item: T): void;
  /** Failures recorded for the item since the last `forget`. */
  numRequeues(item: T): number;
}

/** Per-item exponential backoff: `baseMs * 2^failures`, capped at `maxMs`. */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    private readonly baseMs: number,
    private readonly maxMs: number,
  ) {}

  when(item: T): number {
    const exp = this.failures.get(item) ?? 0;
    this.failures.set(item, exp + 1);
    const backoff = this.baseMs * 2 ** exp;
    // Beyond 2^1023 the power is Infinity; the cap applies all the same.
    return backoff > this.maxMs ? this.maxMs : backoff;
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/**
 * An overall token bucket (golang.org/x/time/rate as client-go uses it): `burst` tokens, refilled
 * at `qps`; every `when` reserves one token, and when none is left the delay is how long the
 * bucket needs to refill to that reservation. Reservations may overdraw, so delays grow in line.
 */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  private tokens: number;
  private lastMs: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly clock: Clock,
  ) {
    this.tokens = burst;
    this.lastMs = clock.monotonic();
  }

  when(_item: T): number {
    const now = this.clock.monotonic();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.lastMs) * this.qps) / 1000);
    this.lastMs = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.qps;
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}

/** The longest delay of several limiters; requeues are the highest any of them reports. */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  private readonly limiters: readonly RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    this.limiters = limiters;
  }

  when(item: T): number {
    // Every limiter must see every call (each one counts failures or spends tokens).
    return this.limiters.reduce((max, limiter) => Math.max(max, limiter.when(item)), 0);
  }

  forget(item: T): void {
    for (const limiter of this.limiters) limiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.limiters.reduce((max, limiter) => Math.max(max, limiter.numRequeues(item)), 0);
  }
}

/**
 * client-go's `DefaultTypedControllerRateLimiter`: per-item backoff 5 ms * 2^n up to 1000 s, and
 * an overall bucket of 10 qps with a burst of 100 so a storm of failing items cannot spin.
 */
export function defaultControllerRateLimiter<T>(clock: Clock): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(5, 1_000_000),
    new BucketRateLimiter<T>(10, 100, clock),
  );
}
