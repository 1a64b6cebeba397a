import { describe, expect, it } from 'vitest';
import { cidrContains, endpointString, familyOf, hostCidr } from './ip.js';

describe('cidrContains', () => {
  it.each([
    ['10.0.0.0/8', '10.255.1.2', true],
    ['10.0.0.0/8', '11.0.0.1', false],
    ['198.18.255.0/24', '198.18.255.1', true],
    ['198.18.255.1/32', '198.18.255.1', true],
    ['198.18.255.1/32', '198.18.255.2', false],
    ['0.0.0.0/0', '203.0.113.1', true],
    ['2001:db8::/32', '2001:db8:ff::1', true],
    ['2001:db8::/32', '2001:db9::1', false],
    ['2001:db8:ff::/64', '2001:db8:ff:0:1::1', true],
    ['::/0', '2001:db8::1', true],
    ['::ffff:0:0/96', '::ffff:198.18.0.1', true],
    ['2001:db8::/32', '198.18.0.1', false],
    ['10.0.0.0/8', '2001:db8::1', false],
    ['10.0.0.0/33', '10.0.0.1', false],
    ['not-a-cidr', '10.0.0.1', false],
  ])('%s contains %s: %s', (cidr, ip, expected) => {
    expect(cidrContains(cidr, ip)).toBe(expected);
  });
});

describe('address helpers', () => {
  it.each([
    ['198.18.0.1', 'IPv4', '198.18.0.1/32', '198.18.0.1:80'],
    ['2001:db8::1', 'IPv6', '2001:db8::1/128', '[2001:db8::1]:80'],
  ])('%s', (ip, family, cidr, endpoint) => {
    expect([familyOf(ip), hostCidr(ip), endpointString(ip, 80)]).toEqual([family, cidr, endpoint]);
  });
});
