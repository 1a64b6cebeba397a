import { describe, expect, it } from 'vitest';
import { FakeClock } from '../util/fake-clock.js';
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
} from './rate-limiter.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';

describe('ItemExponentialFailureRateLimiter', () => {
  it('doubles from the base per failure, per item, up to the cap', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
    const delays = Array.from({ length: 20 }, () => limiter.when('a'));
    expect(delays.slice(0, 6)).toEqual([5, 10, 20, 40, 80, 160]);
    // 5 * 2^17 = 655,360 ms; the next doubling passes 1000 s and is capped.
    expect(delays.slice(17)).toEqual([655_360, 1_000_000, 1_000_000]);
    expect(limiter.numRequeues('a')).toBe(20);
    expect(limiter.when('b')).toBe(5);
  });

  it('starts over after forget', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
    limiter.when('a');
    limiter.when('a');
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
    expect(limiter.when('a')).toBe(5);
  });

  it('stays at the cap however many failures pile up', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
    for (let i = 0; i < 2000; i++) limiter.when('a');
    expect(limiter.when('a')).toBe(1_000_000);
  });
});

describe('BucketRateLimiter', () => {
  it('lets the burst through, then spaces reservations at 1/qps', () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>(10, 100, clock);
    const burst = Array.from({ length: 100 }, (_, i) => limiter.when(`item-${i}`));
    expect(burst.every((d) => d === 0)).toBe(true);
    expect([limiter.when('x'), limiter.when('y'), limiter.when('z')]).toEqual([100, 200, 300]);
  });

  it('refills with time, never above the burst', () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>(10, 100, clock);
    for (let i = 0; i < 100; i++) limiter.when('a');
    clock.advance(500); // 5 tokens back
    const delays = Array.from({ length: 6 }, () => limiter.when('a'));
    expect(delays).toEqual([0, 0, 0, 0, 0, 100]);
    clock.advance(3_600_000);
    const afterIdle = Array.from({ length: 101 }, () => limiter.when('a'));
    expect(afterIdle.filter((d) => d === 0)).toHaveLength(100);
  });
});

describe('MaxOfRateLimiter / defaultControllerRateLimiter', () => {
  it('takes the per-item backoff while the bucket has tokens', () => {
    const limiter = defaultControllerRateLimiter<string>(new FakeClock());
    expect([limiter.when('a'), limiter.when('a'), limiter.when('a')]).toEqual([5, 10, 20]);
    expect(limiter.numRequeues('a')).toBe(3);
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
  });

  it('takes the bucket delay once the burst of 100 is spent across items', () => {
    const limiter = defaultControllerRateLimiter<string>(new FakeClock());
    for (let i = 0; i < 100; i++) expect(limiter.when(`item-${i}`)).toBe(5);
    expect(limiter.when('fresh')).toBe(100); // bucket (100 ms) beats the item's first 5 ms
  });

  it('consults every limiter on every call', () => {
    const clock = new FakeClock();
    const a = new ItemExponentialFailureRateLimiter<string>(1, 1000);
    const b = new ItemExponentialFailureRateLimiter<string>(2, 1000);
    const max = new MaxOfRateLimiter(a, b);
    max.when('x');
    max.when('x');
    expect([a.numRequeues('x'), b.numRequeues('x')]).toEqual([2, 2]);
    expect(new MaxOfRateLimiter(new BucketRateLimiter<string>(1, 1, clock)).numRequeues('x')).toBe(0);
  });
});

describe('RateLimitingQueue', () => {
  it('re-adds a failing item after its backoff and forgets it on success', async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>(clock);
    const readyTimes: number[] = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      q.addRateLimited('a');
      const delay = clock.msUntilNextTimer()!;
      clock.advance(delay);
      readyTimes.push(delay);
      const item = (await q.get())!;
      q.done(item);
    }
    expect(readyTimes).toEqual([5, 10, 20, 40]);
    expect(q.numRequeues('a')).toBe(4);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
  });
});
