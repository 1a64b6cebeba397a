import { describe, expect, it } from 'vitest';
import { Backoff, backoffDelay } from './backoff.js';

const REFLECTOR = { initialMs: 800, maxMs: 30_000, resetAfterMs: 120_000, jitter: 1 };
const steps = (backoff: Backoff, n: number) => Array.from({ length: n }, () => backoff.next());

function manualClock(): { now: () => number; advance: (ms: number) => void } {
  let t = 0;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe('Backoff', () => {
  it("with client-go's reflector values: 800 ms doubling to a 30 s cap", () => {
    const backoff = new Backoff(REFLECTOR, { now: () => 0, random: () => 0 });
    expect(steps(backoff, 9)).toEqual([800, 1_600, 3_200, 6_400, 12_800, 25_600, 30_000, 30_000, 30_000]);
  });

  it('adds jitter after the cap, so capped delays still spread over [cap, 2 x cap)', () => {
    const backoff = new Backoff({ initialMs: 100, maxMs: 250, jitter: 1 }, { random: () => 0.5 });
    expect(steps(backoff, 4)).toEqual([150, 300, 375, 375]);
  });

  it.each([
    { jitter: 0, random: 0.9, expected: [100, 200, 400] },
    { jitter: 0.5, random: 1, expected: [150, 300, 600] },
  ])('jitter $jitter scales the random part, never below the schedule', ({ jitter, random, expected }) => {
    expect(steps(new Backoff({ initialMs: 100, jitter }, { random: () => random }), 3)).toEqual(expected);
  });

  it('starts over after a quiet period', () => {
    const clock = manualClock();
    const backoff = new Backoff({ initialMs: 100, resetAfterMs: 1_000 }, clock);
    backoff.next();
    clock.advance(500);
    expect(backoff.next()).toBe(200);
    clock.advance(1_001);
    expect(backoff.next()).toBe(100);
  });

  it('starts over when reset, and counts its failures', () => {
    const backoff = new Backoff({ initialMs: 100 });
    steps(backoff, 3);
    expect(backoff.failures).toBe(3);
    backoff.reset();
    expect(backoff.failures).toBe(0);
    expect(backoff.next()).toBe(100);
  });

  it('stays at the cap however long it fails', () => {
    const backoff = new Backoff({ initialMs: 100, maxMs: 400 });
    expect(steps(backoff, 2_000).at(-1)).toBe(400);
  });
});

describe('backoffDelay', () => {
  it('grows by the factor from the first delay (step 0)', () => {
    expect([0, 1, 2, 3].map((s) => backoffDelay(s, { initialMs: 5, factor: 3, maxMs: 40 }))).toEqual([5, 15, 40, 40]);
  });

  it('without a cap grows without overflowing to Infinity', () => {
    expect(Number.isFinite(backoffDelay(5_000, { initialMs: 1, factor: 1.5 }))).toBe(true);
  });
});
