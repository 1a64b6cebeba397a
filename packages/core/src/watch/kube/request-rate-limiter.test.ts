import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../util/fake-clock.js';
import { RequestRateLimiter } from './request-rate-limiter.js';

/** Starts `n` waits at once and returns, per wait, the fake-clock ms at which it was let through. */
async function admitted(limiter: RequestRateLimiter, clock: FakeClock, n: number, untilMs: number): Promise<number[]> {
  const at: number[] = [];
  const waits = Array.from({ length: n }, () => limiter.wait().then(() => at.push(clock.monotonic())));
  await clock.tick(untilMs);
  await Promise.all(waits);
  return at;
}

describe('RequestRateLimiter (client-go token bucket)', () => {
  it('kube-proxy defaults (qps 5, burst 10): 10 requests at once, then one every 200 ms', async () => {
    const clock = new FakeClock();
    const at = await admitted(new RequestRateLimiter({ qps: 5, burst: 10 }, clock), clock, 13, 1_000);
    expect(at).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 200, 400, 600]);
  });

  it.each([
    ['qps 0 and burst 0 mean client-go defaults 5/10', { qps: 0, burst: 0 }, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 200]],
    ['qps 2, burst 1', { qps: 2, burst: 1 }, [0, 500, 1000]],
    ['a negative qps disables limiting', { qps: -1, burst: 1 }, [0, 0, 0, 0, 0]],
  ])('%s', async (_name, limit, expected) => {
    const clock = new FakeClock();
    expect(await admitted(new RequestRateLimiter(limit, clock), clock, expected.length, 2_000)).toEqual(expected);
  });

  it('refills while idle, never above burst', async () => {
    const clock = new FakeClock();
    const limiter = new RequestRateLimiter({ qps: 1, burst: 2 }, clock);
    expect(await admitted(limiter, clock, 2, 0)).toEqual([0, 0]);
    await clock.tick(60_000); // a long quiet spell refills two tokens, not sixty
    expect(await admitted(limiter, clock, 3, 1_000)).toEqual([60_000, 60_000, 61_000]);
  });

  it('an aborted wait rejects and hands its token back to the next caller', async () => {
    const clock = new FakeClock();
    const limiter = new RequestRateLimiter({ qps: 1, burst: 1 }, clock);
    await limiter.wait();
    const stop = new AbortController();
    const aborted = limiter.wait(stop.signal);
    stop.abort(new Error('stopping'));
    await expect(aborted).rejects.toThrow('stopping');
    let next: number | undefined;
    void limiter.wait().then(() => (next = clock.monotonic()));
    await clock.tick(1_000);
    expect(next).toBe(1_000);
  });
});
