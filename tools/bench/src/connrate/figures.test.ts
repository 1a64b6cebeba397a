import { describe, expect, it } from 'vitest';
import { perSecond, rateFigures, roundOrder } from './figures.js';

describe('perSecond', () => {
  it.each([
    [{ connections: 3000, ms: 2000 }, 1500],
    [{ connections: 0, ms: 1000 }, 0],
    [{ connections: 1, ms: 0.5 }, 2000],
  ])('%j -> %d/s', (sample, rate) => expect(perSecond(sample)).toBe(rate));

  it('refuses a sample without a duration', () =>
    expect(() => perSecond({ connections: 5, ms: 0 })).toThrow(/positive duration/));
});

describe('rateFigures', () => {
  it('reports medians, per-pair ratios and the ratio of medians', () => {
    const loaded = [900, 1000, 800].map((connections) => ({ connections, ms: 1000 }));
    const small = [1000, 1000, 1000].map((connections) => ({ connections, ms: 1000 }));
    const f = rateFigures(loaded, small);
    expect(f.loaded.p50).toBe(900);
    expect(f.small.p50).toBe(1000);
    expect(f.pairRatios.p50).toBeCloseTo(0.9);
    expect(f.pairRatios.min).toBeCloseTo(0.8);
    expect(f.ratioOfMedians).toBeCloseTo(0.9);
  });

  it('pairs samples in order, so a slower machine in one round moves both sides', () => {
    const loaded = [
      { connections: 500, ms: 1000 },
      { connections: 1000, ms: 1000 },
    ];
    const small = [
      { connections: 500, ms: 1000 },
      { connections: 1000, ms: 1000 },
    ];
    expect(rateFigures(loaded, small).pairRatios.max).toBe(1);
  });

  it('reports the rate per second of client CPU when every sample has it', () => {
    const loaded = [{ connections: 900, ms: 2000, cpuMs: 1000 }];
    const small = [{ connections: 1000, ms: 1000, cpuMs: 1000 }];
    const f = rateFigures(loaded, small);
    expect(f.loaded.p50).toBe(450);
    expect(f.perCpu?.loaded.p50).toBe(900);
    expect(f.perCpu?.small.p50).toBe(1000);
    expect(f.perCpu?.pairRatios.p50).toBeCloseTo(0.9);
    expect(rateFigures([{ connections: 1, ms: 1 }], [{ connections: 1, ms: 1, cpuMs: 1 }]).perCpu).toBeUndefined();
  });

  it('refuses unpaired samples', () => expect(() => rateFigures([{ connections: 1, ms: 1 }], [])).toThrow(/unpaired/));
});

describe('roundOrder', () => {
  it('alternates which cluster goes first', () =>
    expect([0, 1, 2, 3].map(roundOrder)).toEqual([
      ['loaded', 'small'],
      ['small', 'loaded'],
      ['loaded', 'small'],
      ['small', 'loaded'],
    ]));
});
