import type { Clock } from '../util/clock.js';

/**
 * The token bucket behind upstream's BoundedFrequencyRunner (client-go's
 * `NewTokenBucketRateLimiterWithClock`, i.e. golang.org/x/time/rate with qps = 1/period): it starts
 * full with `burst` tokens and refills continuously, one token per `periodMs`; `tryAccept` takes a
 * token if one is there and never waits or overdraws.
 *
 * Tokens are kept in milliseconds of refill (one token = `periodMs`), so whole-millisecond clocks
 * give exact answers: a token is back exactly `periodMs` after it was taken, not a rounding error
 * later.
 */
export class TokenBucket {
  readonly #periodMs: number;
  readonly #capacityMs: number;
  readonly #clock: Clock;
  #filledMs: number;
  #lastMs: number;

  constructor(periodMs: number, burst: number, clock: Clock) {
    this.#periodMs = periodMs;
    this.#capacityMs = periodMs * burst;
    this.#clock = clock;
    this.#filledMs = this.#capacityMs;
    this.#lastMs = clock.monotonic();
  }

  tryAccept(): boolean {
    this.#refill();
    if (this.#filledMs < this.#periodMs) return false;
    this.#filledMs -= this.#periodMs;
    return true;
  }

  /** Milliseconds until `tryAccept` would succeed (0 when a token is there now). */
  msUntilToken(): number {
    this.#refill();
    return Math.max(0, this.#periodMs - this.#filledMs);
  }

  #refill(): void {
    const now = this.#clock.monotonic();
    this.#filledMs = Math.min(this.#capacityMs, this.#filledMs + (now - this.#lastMs));
    this.#lastMs = now;
  }
}
