import { describe, expect, it } from 'vitest';
import { retryDelay, sleep } from './backoff.js';

describe('retryDelay', () => {
  it('doubles from 100 ms up to 10 s', () => {
    const none = () => 0; // no jitter drawn
    expect([1, 2, 3, 4, 8, 20].map((a) => retryDelay(a, {}, none))).toEqual([100, 200, 400, 800, 10_000, 10_000]);
  });

  it("adds up to the jitter fraction (the kit's client-go jitter: never sooner than the schedule)", () => {
    expect(retryDelay(3, { jitter: 0.2 }, () => 0)).toBe(400);
    expect(retryDelay(3, { jitter: 0.2 }, () => 1)).toBe(480);
    expect(retryDelay(1, { initialMs: 5, factor: 3, maxMs: 40, jitter: 0 }, Math.random)).toBe(5);
    expect(retryDelay(3, { initialMs: 5, factor: 3, maxMs: 40, jitter: 0 }, Math.random)).toBe(40);
  });
});

describe('sleep', () => {
  it('returns as soon as the signal aborts', async () => {
    const stop = new AbortController();
    const slept = sleep(3_600_000, stop.signal);
    stop.abort();
    await expect(slept).resolves.toBeUndefined();
  });
});
