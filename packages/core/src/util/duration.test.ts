import { describe, expect, it } from 'vitest';
import { formatDurationMs, parseDurationMs } from './duration.js';

describe('parseDurationMs', () => {
  it.each([
    ['0', 0],
    ['300ms', 300],
    ['1s', 1000],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
    ['2h45m', 9_900_000],
    ['250us', 0.25],
  ])('%s = %d ms', (text, ms) => expect(parseDurationMs(text)).toBe(ms));

  it.each(['', '1', 's', '1x', '-1s', '1s junk', '1 s'])('rejects %j', (text) => {
    expect(() => parseDurationMs(text)).toThrow(/invalid duration/);
  });

  it('formats back to the largest whole unit', () => {
    expect([0, 500, 1000, 90_000, 120_000, 3_600_000].map(formatDurationMs)).toEqual([
      '0s',
      '500ms',
      '1s',
      '90s',
      '2m',
      '1h',
    ]);
  });
});
