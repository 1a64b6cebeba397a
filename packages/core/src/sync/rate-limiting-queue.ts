import type { Clock } from '../util/clock.js';
import { DelayingQueue } from './delaying-queue.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.js';

/**
 * client-go's rate-limiting queue: a delaying queue whose retries wait as long as the limiter says.
 * The usual worker pattern: on failure `addRateLimited(item)`, on success `forget(item)`; either
 * way `done(item)`.
 */
export class RateLimitingQueue<T> extends DelayingQueue<T> {
  private readonly limiter: RateLimiter<T>;

  constructor(clock: Clock, limiter: RateLimiter<T> = defaultControllerRateLimiter<T>(clock)) {
    super(clock);
    this.limiter = limiter;
  }

  addRateLimited(item: T): void {
    this.addAfter(item, this.limiter.when(item));
  }

  forget(item: T): void {
    this.limiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.limiter.numRequeues(item);
  }
}
