import { describe, expect, it } from 'vitest';
import { pod } from '../../test/support/objects.js';
import { familyOf, parseTime, podIP } from './objects.js';

describe('objects', () => {
  it('parses RFC 3339 with up to nanoseconds, keeping milliseconds', () => {
    expect(parseTime('2026-01-23T18:41:37Z')).toBe(Date.UTC(2026, 0, 23, 18, 41, 37));
    expect(parseTime('2026-01-23T18:41:37.339764123Z')! - Date.UTC(2026, 0, 23, 18, 41, 37, 339)).toBeCloseTo(
      0.764123,
      3,
    );
    expect(parseTime('2026-01-23T19:41:37.5+01:00')).toBe(Date.UTC(2026, 0, 23, 18, 41, 37, 500));
    expect(parseTime('0001-01-01T00:00:00Z')).toBeUndefined();
    expect(parseTime('yesterday')).toBeUndefined();
    expect(parseTime(undefined)).toBeUndefined();
  });

  it('picks the primary pod IP, or the one of a family', () => {
    const dual = pod('p', { ips: ['198.18.1.10', '2001:db8:1::10'] });
    expect(podIP(dual)).toBe('198.18.1.10');
    expect(podIP(dual, 'IPv6')).toBe('2001:db8:1::10');
    expect(podIP(pod('q'))).toBeUndefined();
    expect(podIP({ status: { podIP: 'garbage' } })).toBeUndefined();
    expect([familyOf('198.18.1.1'), familyOf('2001:db8::1'), familyOf('x')]).toEqual(['IPv4', 'IPv6', undefined]);
  });
});
