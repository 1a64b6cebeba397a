import { describe, expect, it } from 'vitest';
import { canonicalCIDR, canonicalIP, cidrContains, ipFamilyOf, parseCIDR, parseIP } from './ip.js';

describe('canonicalIP', () => {
  it.each([
    ['198.18.0.1', '198.18.0.1'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    ['010.001.0.09', '10.1.0.9'], // legacy leading zeros read as decimal, like ParseIPSloppy
    ['2001:DB8:0:0::1', '2001:db8::1'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:1:0:0:0:1', '2001:db8:0:1::1'], // the longest zero run is compressed
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'], // first run wins a tie
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'], // a single zero group stays
    ['::', '::'],
    ['::1', '::1'],
    ['fe80::', 'fe80::'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
    ['::ffff:198.18.0.1', '198.18.0.1'], // IPv4-mapped IPv6 is the IPv4 address
    ['::FFFF:c612:1', '198.18.0.1'],
    ['64:ff9b::198.18.0.1', '64:ff9b::c612:1'],
  ])('%s -> %s', (input, canonical) => {
    expect(canonicalIP(input)).toBe(canonical);
  });

  it.each([
    [''],
    ['198.18.0'],
    ['198.18.0.1.2'],
    ['198.18.0.256'],
    ['198.18.0.-1'],
    ['198.18.0.1 '],
    [' 198.18.0.1'],
    ['0x1.0.0.1'],
    ['1234.0.0.1'],
    ['2001:db8::1::2'],
    ['2001:db8:::1'],
    ['2001:db8:0:0:0:0:0:0:1'],
    ['1:2:3:4:5:6:7:8::'],
    ['1:2:3:4:5:6:7'],
    ['2001:db8::12345'],
    ['2001:db8::g'],
    ['fe80::1%eth0'],
    ['[2001:db8::1]'],
    ['1.2.3.4::'],
    ['::1.2.3'],
    ['a'.repeat(1 << 20)],
  ])('rejects %j', (input) => {
    expect(canonicalIP(input)).toBeUndefined();
  });

  it('tells the family', () => {
    expect(ipFamilyOf('198.18.0.1')).toBe('IPv4');
    expect(ipFamilyOf('2001:db8::1')).toBe('IPv6');
    expect(ipFamilyOf('::ffff:1.2.3.4')).toBe('IPv4');
    expect(ipFamilyOf('nope')).toBeUndefined();
    expect(parseIP('2001:db8::1')?.bytes).toHaveLength(16);
  });
});

describe('canonicalCIDR', () => {
  it.each([
    ['203.0.113.0/24', '203.0.113.0/24'],
    ['203.0.113.7/24', '203.0.113.0/24'], // host bits cleared
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['198.18.0.1/32', '198.18.0.1/32'],
    ['198.18.3.7/20', '198.18.0.0/20'],
    ['2001:DB8::1/32', '2001:db8::/32'],
    ['2001:db8:ff00::/40', '2001:db8:ff00::/40'],
    ['2001:db8::1/128', '2001:db8::1/128'],
    ['::/0', '::/0'],
    ['::ffff:203.0.113.0/120', '203.0.113.0/24'],
  ])('%s -> %s', (input, canonical) => {
    expect(canonicalCIDR(input)).toBe(canonical);
  });

  it.each([
    ['203.0.113.0'],
    ['203.0.113.0/33'],
    ['2001:db8::/129'],
    ['203.0.113.0/'],
    ['203.0.113.0/-1'],
    ['x/24'],
    ['::ffff:203.0.113.0/64'],
    [' 203.0.113.0/24'],
  ])('rejects %j', (input) => {
    expect(parseCIDR(input)).toBeUndefined();
  });
});

describe('cidrContains', () => {
  it.each([
    ['198.18.0.0/16', '198.18.255.1', true],
    ['198.18.0.0/16', '198.19.0.1', false],
    ['198.18.0.0/15', '198.19.0.1', true],
    ['0.0.0.0/0', '203.0.113.9', true],
    ['198.18.0.1/32', '198.18.0.1', true],
    ['198.18.0.1/32', '198.18.0.2', false],
    ['2001:db8::/32', '2001:db8:1::5', true],
    ['2001:db8::/32', '2001:db9::5', false],
    ['::/0', '198.18.0.1', false], // families never mix
    ['198.18.0.0/16', '::ffff:198.18.0.1', true],
    ['198.18.0.0/16', 'garbage', false],
    ['garbage', '198.18.0.1', false],
  ])('%s contains %s: %s', (cidr, ip, expected) => {
    expect(cidrContains(cidr, ip)).toBe(expected);
  });

  it('accepts parsed values', () => {
    const cidr = parseCIDR('203.0.113.0/24')!;
    expect(cidrContains(cidr, parseIP('203.0.113.200')!)).toBe(true);
  });
});
