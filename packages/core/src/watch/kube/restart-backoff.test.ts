import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../util/fake-clock.js';
import { RestartBackoff } from './restart-backoff.js';

const steps = (backoff: RestartBackoff, n: number) => Array.from({ length: n }, () => backoff.nextDelayMs());

describe('RestartBackoff', () => {
  it("defaults to client-go's reflector: 800 ms doubling to a 30 s cap", () => {
    const backoff = new RestartBackoff(new FakeClock(), {}, () => 0);
    expect(steps(backoff, 9)).toEqual([800, 1_600, 3_200, 6_400, 12_800, 25_600, 30_000, 30_000, 30_000]);
  });

  it('adds jitter after the cap, so capped delays still spread over [cap, 2 x cap)', () => {
    const backoff = new RestartBackoff(new FakeClock(), { initialMs: 100, maxMs: 250, jitter: 1 }, () => 0.5);
    expect(steps(backoff, 4)).toEqual([150, 300, 375, 375]);
  });

  it.each([
    { jitter: 0, random: 0.9, expected: [100, 200, 400] },
    { jitter: 0.5, random: 1, expected: [150, 300, 600] },
  ])('jitter $jitter scales the random part', ({ jitter, random, expected }) => {
    expect(steps(new RestartBackoff(new FakeClock(), { initialMs: 100, jitter }, () => random), 3)).toEqual(expected);
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

  it('starts over when reset', () => {
    const backoff = new RestartBackoff(new FakeClock(), { initialMs: 100, jitter: 0 });
    steps(backoff, 3);
    backoff.reset();
    expect(backoff.nextDelayMs()).toBe(100);
  });

  it('stays at the cap however long it fails', () => {
    const backoff = new RestartBackoff(new FakeClock(), { initialMs: 100, maxMs: 400, jitter: 0 });
    expect(steps(backoff, 2_000).at(-1)).toBe(400);
  });
});
