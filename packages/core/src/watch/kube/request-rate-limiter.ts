import type { Clock } from '../../util/clock.js';

/** `clientConnection.qps`/`burst`; client-go's defaults (rest.DefaultQPS/DefaultBurst) are 5 and 10. */
export interface RateLimit {
  /** Requests per second; 0 means client-go's default (5), a negative value disables limiting. */
  readonly qps: number;
  /** Requests allowed at once after a quiet spell; 0 means client-go's default (10). */
  readonly burst: number;
}

export const DEFAULT_RATE_LIMIT: RateLimit = { qps: 5, burst: 10 };

/**
 * client-go's request throttle (`flowcontrol.NewTokenBucketRateLimiter`, golang.org/x/time/rate
 * underneath), which every request of a kube-proxy's client passes before it is sent, LIST and
 * WATCH alike: a bucket of `burst` tokens refilled at `qps` per second. `wait` reserves a token as
 * `rate.Limiter.Wait` does: the bucket may go into debt, so concurrent callers queue in order,
 * each `1/qps` after the previous; an aborted wait hands its token back.
 */
export class RequestRateLimiter {
  readonly #clock: Clock;
  readonly #periodMs: number;
  readonly #burst: number;
  #tokens: number;
  #lastMs: number;

  constructor(limit: RateLimit, clock: Clock) {
    const qps = limit.qps === 0 ? DEFAULT_RATE_LIMIT.qps : limit.qps;
    this.#clock = clock;
    this.#periodMs = qps < 0 ? 0 : 1000 / qps;
    this.#burst = limit.burst === 0 ? DEFAULT_RATE_LIMIT.burst : limit.burst;
    this.#tokens = this.#burst;
    this.#lastMs = clock.monotonic();
  }

  /** Resolves when the request may be sent; rejects with the signal's reason once it aborts. */
  wait(signal?: AbortSignal): Promise<void> {
    if (this.#periodMs === 0) return Promise.resolve(); // qps < 0: unlimited, as client-go
    signal?.throwIfAborted();
    this.#refill();
    this.#tokens -= 1;
    const delayMs = this.#tokens >= 0 ? 0 : -this.#tokens * this.#periodMs;
    if (delayMs === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = this.#clock.setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, delayMs);
      const onAbort = () => {
        timer.cancel();
        this.#tokens += 1;
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #refill(): void {
    const now = this.#clock.monotonic();
    this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#lastMs) / this.#periodMs);
    this.#lastMs = now;
  }
}
