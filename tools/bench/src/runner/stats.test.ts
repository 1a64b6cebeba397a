import { describe, expect, it } from 'vitest';
import { percentile, summarize } from './stats.js';

const oneToTen = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

describe('percentile', () => {
  it('interpolates between the closest ranks', () => {
    expect(percentile(oneToTen, 50)).toBe(5.5);
    expect(percentile(oneToTen, 99)).toBeCloseTo(9.91, 10);
    expect(percentile(oneToTen, 0)).toBe(1);
    expect(percentile(oneToTen, 100)).toBe(10);
    expect(percentile([10, 20, 30], 50)).toBe(20);
    expect(percentile([10, 20, 30], 25)).toBe(15);
  });

  it('returns the only sample for every percentile', () => {
    expect(percentile([7], 50)).toBe(7);
    expect(percentile([7], 99)).toBe(7);
  });

  it('rejects no samples and percentiles outside 0..100', () => {
    expect(() => percentile([], 50)).toThrow(RangeError);
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], Number.NaN)).toThrow(RangeError);
  });
});

describe('summarize', () => {
  it('sorts before ranking and reports n, min, max, mean, p50, p99', () => {
    expect(summarize([10, 1, 9, 2, 8, 3, 7, 4, 6, 5])).toEqual({
      n: 10,
      min: 1,
      max: 10,
      mean: 5.5,
      p50: 5.5,
      p99: expect.closeTo(9.91, 10),
    });
    expect(summarize([3, 1, 2]).p50).toBe(2);
  });

  it('does not reorder the caller’s samples', () => {
    const samples = [3, 1, 2];
    summarize(samples);
    expect(samples).toEqual([3, 1, 2]);
  });

  it('rejects empty and non-finite samples', () => {
    expect(() => summarize([])).toThrow(RangeError);
    expect(() => summarize([1, Number.POSITIVE_INFINITY])).toThrow(RangeError);
  });
});
