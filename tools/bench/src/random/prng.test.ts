import { describe, expect, it } from 'vitest';
import { createRandom, forkRandom, shuffled } from './prng.js';

const draw = (seed: number, n: number): number[] => {
  const r = createRandom(seed);
  return Array.from({ length: n }, () => r.next());
};

describe('createRandom', () => {
  it('repeats the same sequence for the same seed', () => {
    expect(draw(42, 20)).toEqual(draw(42, 20));
  });

  it('gives a different sequence for a different seed', () => {
    expect(draw(42, 20)).not.toEqual(draw(43, 20));
  });

  it('stays in [0, 1) and int stays in [0, bound)', () => {
    const r = createRandom(7);
    for (let i = 0; i < 10_000; i++) {
      const x = r.next();
      expect(x >= 0 && x < 1).toBe(true);
      const k = r.int(3);
      expect([0, 1, 2]).toContain(k);
    }
  });

  it('rejects a non-positive bound and an empty pick', () => {
    const r = createRandom(1);
    expect(() => r.int(0)).toThrow(RangeError);
    expect(() => r.pick([])).toThrow(RangeError);
  });
});

describe('forkRandom', () => {
  it('gives independent, reproducible streams per label', () => {
    const a1 = forkRandom(1, 'a').next();
    expect(forkRandom(1, 'a').next()).toBe(a1);
    expect(forkRandom(1, 'b').next()).not.toBe(a1);
    expect(forkRandom(2, 'a').next()).not.toBe(a1);
  });
});

describe('shuffled', () => {
  it('is a permutation and leaves the input untouched', () => {
    const input = Array.from({ length: 100 }, (_, i) => i);
    const out = shuffled(input, createRandom(3));
    expect(out).not.toEqual(input);
    expect([...out].sort((a, b) => a - b)).toEqual(input);
    expect(input[0]).toBe(0);
  });
});
