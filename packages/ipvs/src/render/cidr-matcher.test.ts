import { describe, expect, it } from 'vitest';
import { cidrMatcher } from './cidr-matcher.js';

describe('cidrMatcher', () => {
  it.each([
    ['10.96.0.0/12', '10.100.1.1', true],
    ['10.96.0.0/12', '10.112.0.1', false],
    ['2001:db8:5e::/64', '2001:db8:5e::a', true],
    ['2001:db8:5e::/64', '2001:db8:5f::a', false],
    ['10.96.0.0/12', '2001:db8:5e::a', false],
  ])('%s contains %s: %s', (cidr, ip, expected) => {
    expect(cidrMatcher([cidr])(ip)).toBe(expected);
  });

  it('no CIDRs match nothing', () => {
    expect(cidrMatcher([])('10.0.0.1')).toBe(false);
  });
});
