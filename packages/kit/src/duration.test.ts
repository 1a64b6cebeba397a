import { describe, expect, it } from 'vitest';
import { formatGoDuration, parseDurationMs, parseGoDuration } from './duration.js';

describe('parseGoDuration', () => {
  it.each([
    ['30s', 30_000],
    ['1m30s', 90_000],
    ['250ms', 250],
    ['0', 0],
    ['0s', 0],
    ['-1s', -1_000],
    ['+2h', 7_200_000],
    ['1.5s', 1_500],
  ])('%s is %d ms', (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });

  it.each(['', '-', '30', 'abc', '1x', '1s junk'])("rejects %j with Go's message", (text) => {
    expect(() => parseGoDuration(text)).toThrow(`invalid duration ${JSON.stringify(text)}`);
  });
});

describe('formatGoDuration', () => {
  it.each([
    [0, '0s'],
    [250, '250ms'],
    [1_000, '1s'],
    [1_500, '1.5s'],
    [30_000, '30s'],
    [90_000, '1m30s'],
    [900_000, '15m0s'],
    [3_600_000, '1h0m0s'],
    [86_400_000, '24h0m0s'],
    [-1_000, '-1s'],
    [0.5, '500µs'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
  });
});

describe('parseDurationMs (a period or timeout: never negative)', () => {
  it.each([
    ['0', 0],
    ['300ms', 300],
    ['1s', 1000],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
    ['2h45m', 9_900_000],
    ['250us', 0.25],
  ])('%s = %d ms', (text, ms) => expect(parseDurationMs(text)).toBe(ms));

  it.each(['', '1', 's', '1x', '1s junk', '1 s'])('rejects %j, naming the syntax', (text) => {
    expect(() => parseDurationMs(text)).toThrow(/invalid duration .*expected a number with a unit/);
  });

  it('rejects a negative duration', () => {
    expect(() => parseDurationMs('-1s')).toThrow('invalid duration "-1s": must not be negative');
  });

  it('reads back what formatGoDuration wrote', () => {
    for (const ms of [0, 0.5, 250, 1_500, 90_000, 3_600_000, 86_400_000]) {
      expect(parseDurationMs(formatGoDuration(ms))).toBe(ms);
    }
  });
});
