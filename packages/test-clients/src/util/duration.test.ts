import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration.js';

describe('parseDuration (Go syntax)', () => {
  it.each([
    ['0', 0],
    ['100ms', 100],
    ['1s', 1_000],
    ['1.5s', 1_500],
    ['1m30s', 90_000],
    ['2h', 7_200_000],
    ['250us', 0.25],
    ['+5s', 5_000],
  ])('%s = %d ms', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', '5', '-1s', '1x', 's', '1s2', '1 s'])('rejects %j', (text) =>
    expect(parseDuration(text)).toBeUndefined(),
  );

  it('formats for logs', () => {
    expect([0, 50, 1_000, 90_000, 600_000].map(formatDuration)).toEqual(['0s', '50ms', '1s', '1.5m', '10m']);
  });
});
