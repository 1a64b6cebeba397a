import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../util/fake-clock.js';
import { RestartBackoff } from './restart-backoff.js';

describe('RestartBackoff', () => {
  it('doubles up to the cap', () => {
    const backoff = new RestartBackoff(new FakeClock(), { initialMs: 100, maxMs: 500, jitter: 0 });
    expect(Array.from({ length: 5 }, () => backoff.nextDelayMs())).toEqual([100, 200, 400, 500, 500]);
  });

  it('adds jitter without exceeding the cap', () => {
    const backoff = new RestartBackoff(new FakeClock(), { initialMs: 100, maxMs: 250, jitter: 1 }, () => 0.5);
    expect([backoff.nextDelayMs(), backoff.nextDelayMs()]).toEqual([150, 250]);
  });

  it('starts over after a quiet period', () => {
    const clock = new FakeClock();
    const backoff = new RestartBackoff(clock, { initialMs: 100, resetAfterMs: 1_000, jitter: 0 });
    backoff.nextDelayMs();
    clock.advance(500);
    expect(backoff.nextDelayMs()).toBe(200);
    clock.advance(1_001);
    expect(backoff.nextDelayMs()).toBe(100);
  });
});
