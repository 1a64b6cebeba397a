import { describe, expect, it } from 'vitest';
import { backoffDelay, sleep } from './backoff.js';

describe('backoffDelay', () => {
  it('doubles from 100 ms up to 10 s', () => {
    const middle = () => 0.5; // no jitter
    expect([1, 2, 3, 4, 8, 20].map((a) => backoffDelay(a, {}, middle))).toEqual([100, 200, 400, 800, 10_000, 10_000]);
  });

  it('spreads delays by the jitter factor', () => {
    expect(backoffDelay(3, { jitter: 0.2 }, () => 0)).toBe(320);
    expect(backoffDelay(3, { jitter: 0.2 }, () => 1)).toBe(480);
    expect(backoffDelay(1, { initialMs: 5, factor: 3, maxMs: 40, jitter: 0 }, Math.random)).toBe(5);
    expect(backoffDelay(3, { initialMs: 5, factor: 3, maxMs: 40, jitter: 0 }, Math.random)).toBe(40);
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
