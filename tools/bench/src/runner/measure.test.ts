import { describe, expect, it } from 'vitest';
import { measure, measurePair, measurementOf } from './measure.js';
import { ratio } from './ratio.js';

/** A clock that advances by the given durations, one per run, and records who ran. */
function scriptedClock(durations: number[]): { now: () => number; tick: (label: string) => void; order: string[] } {
  let time = 0;
  const order: string[] = [];
  let next = 0;
  return {
    now: () => time,
    tick: (label) => {
      order.push(label);
      time += durations[next++] ?? 0;
    },
    order,
  };
}

describe('measure', () => {
  it('records `runs` samples after `warmup` unrecorded runs', async () => {
    const clock = scriptedClock([100, 100, 3, 1, 2]);
    let gcs = 0;
    const m = await measure('x', () => clock.tick('x'), {
      warmup: 2,
      runs: 3,
      now: clock.now,
      beforeEach: () => gcs++,
    });
    expect(m.samples).toEqual([3, 1, 2]);
    expect(m).toMatchObject({ name: 'x', unit: 'ms', n: 3, p50: 2, min: 1, max: 3 });
    expect(clock.order.length).toBe(5);
    expect(gcs).toBe(5);
  });

  it('awaits asynchronous work inside the timed part', async () => {
    let time = 0;
    const m = await measure(
      'async',
      async () => {
        await Promise.resolve();
        time += 7;
      },
      { warmup: 0, runs: 2, now: () => time },
    );
    expect(m.samples).toEqual([7, 7]);
  });

  it('rejects impossible run counts', async () => {
    await expect(measure('x', () => 0, { runs: 0 })).rejects.toThrow(RangeError);
    await expect(measure('x', () => 0, { warmup: -1 })).rejects.toThrow(RangeError);
  });
});

describe('measurePair and ratio', () => {
  it('alternates subject and reference and pairs their runs', async () => {
    // warmup: a b; run 0: a b; run 1: b a; run 2: a b
    const clock = scriptedClock([0, 0, 10, 100, 200, 20, 30, 300]);
    const pair = await measurePair(
      { name: 'ours', fn: () => clock.tick('a') },
      { name: 'ref', fn: () => clock.tick('b') },
      { warmup: 1, runs: 3, now: clock.now },
    );
    expect(clock.order).toEqual(['a', 'b', 'a', 'b', 'b', 'a', 'a', 'b']);
    expect(pair.subject.samples).toEqual([10, 20, 30]);
    expect(pair.reference.samples).toEqual([100, 200, 300]);
    const r = ratio(pair.subject, pair.reference);
    expect(r).toMatchObject({ name: 'ours/ref', unit: 'x', n: 3, p50: 0.1 });
  });

  it('takes the median of per-run ratios, not the ratio of medians', () => {
    const r = ratio(measurementOf('a', [1, 10, 4]), measurementOf('b', [2, 5, 8]));
    expect(r.samples).toEqual([0.5, 2, 0.5]);
    expect(r.p50).toBe(0.5);
  });

  it('refuses unpaired or zero references', () => {
    expect(() => ratio(measurementOf('a', [1, 2]), measurementOf('b', [1]))).toThrow(RangeError);
    expect(() => ratio(measurementOf('a', [1]), measurementOf('b', [0]))).toThrow(RangeError);
  });
});
