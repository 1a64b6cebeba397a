import { describe, expect, test } from 'vitest';
import { errorOutsideWindow, PRECISE_INTERVAL_MS, type PreciseSample } from './precise-figures.js';

const window = { sentAt: 1_000, confirmedAt: 1_012 };
const at = (kind: PreciseSample['kind'], reportedAt: number): number =>
  errorOutsideWindow({ kind, reportedAt, window });

describe('errorOutsideWindow', () => {
  test('an instant inside the window is no error; outside, its distance to the nearer edge', () => {
    expect(at('creation', 1_000)).toBe(0);
    expect(at('creation', 1_012)).toBe(0);
    expect(at('creation', 1_030)).toBe(18);
    expect(at('creation', 990)).toBe(10);
  });

  test('a revocation may be reported up to one probe interval before the sync began', () => {
    expect(at('revocation', 1_000 - PRECISE_INTERVAL_MS)).toBe(0);
    expect(at('revocation', 1_000 - PRECISE_INTERVAL_MS - 3)).toBe(3);
    expect(at('revocation', 1_020)).toBe(8);
  });
});
