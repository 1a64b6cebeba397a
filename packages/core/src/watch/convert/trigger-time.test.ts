import { describe, expect, it } from 'vitest';
import { parseTriggerTime } from './trigger-time.js';

describe('parseTriggerTime', () => {
  it.each<[string | undefined, number | undefined]>([
    ['2025-03-01T10:00:00Z', Date.UTC(2025, 2, 1, 10, 0, 0)],
    ['2025-03-01t10:00:00z', Date.UTC(2025, 2, 1, 10, 0, 0)],
    ['2025-03-01T10:00:00.123Z', Date.UTC(2025, 2, 1, 10, 0, 0, 123)],
    ['2025-03-01T10:00:00.123456789Z', Date.UTC(2025, 2, 1, 10, 0, 0, 123)], // RFC3339Nano, truncated to ms
    ['2025-03-01T10:00:00.5Z', Date.UTC(2025, 2, 1, 10, 0, 0, 500)],
    ['2025-03-01T12:30:00+02:30', Date.UTC(2025, 2, 1, 10, 0, 0)],
    ['2025-03-01T07:00:00-03:00', Date.UTC(2025, 2, 1, 10, 0, 0)],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    [undefined, undefined],
    ['', undefined],
    ['not a time', undefined],
    ['2025-03-01 10:00:00Z', undefined],
    ['2025-03-01T10:00:00', undefined], // no zone
    ['2025-13-01T10:00:00Z', undefined],
    ['2025-02-29T10:00:00Z', undefined],
    ['2025-03-01T24:00:00Z', undefined],
    ['2025-03-01T10:00:00.1234567890Z', undefined],
    ['0001-01-01T00:00:00Z', undefined], // Go's zero time: unset
    ['1700000000', undefined],
  ])('%j -> %s', (text, expected) => {
    expect(parseTriggerTime(text)).toBe(expected);
  });
});
