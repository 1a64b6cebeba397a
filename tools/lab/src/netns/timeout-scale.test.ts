import { describe, expect, it } from 'vitest';
import { scaledTimeout, TIMEOUT_SCALE_ENV } from './timeout-scale.js';

describe('scaledTimeout', () => {
  it.each([
    [undefined, 1_000],
    ['3', 3_000],
    ['0.5', 1_000], // never shorter than asked
    ['nope', 1_000],
  ])('%s', (scale, expected) => {
    expect(scaledTimeout(1_000, scale === undefined ? {} : { [TIMEOUT_SCALE_ENV]: scale })).toBe(expected);
  });
});
