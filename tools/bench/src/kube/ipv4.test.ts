import { describe, expect, it } from 'vitest';
import { cidrContains, cidrSize, formatCidr, intToIpv4, ipv4ToInt, parseCidr } from './ipv4.js';

describe('ipv4', () => {
  it('round-trips addresses through integers', () => {
    for (const ip of ['0.0.0.0', '198.18.255.7', '255.255.255.255', '10.0.1.2']) {
      expect(intToIpv4(ipv4ToInt(ip))).toBe(ip);
    }
    expect(ipv4ToInt('198.19.0.1')).toBe(198 * 2 ** 24 + 19 * 2 ** 16 + 1);
  });

  it('rejects malformed addresses and integers', () => {
    for (const bad of ['1.2.3', '1.2.3.256', 'a.b.c.d', '1.2.3.4.5', '01234.1.1.1']) {
      expect(() => ipv4ToInt(bad)).toThrow();
    }
    expect(() => intToIpv4(-1)).toThrow(RangeError);
    expect(() => intToIpv4(2 ** 32)).toThrow(RangeError);
  });

  it('parses, sizes, formats and tests membership of CIDRs', () => {
    const net = parseCidr('198.18.0.0/23');
    expect(cidrSize(net)).toBe(512);
    expect(formatCidr(net)).toBe('198.18.0.0/23');
    expect(cidrContains(net, '198.18.1.255')).toBe(true);
    expect(cidrContains(net, '198.18.2.0')).toBe(false);
    expect(cidrContains(net, '198.17.255.255')).toBe(false);
    expect(() => parseCidr('198.18.0.1/23')).toThrow(/host bits/);
    expect(() => parseCidr('198.18.0.0/33')).toThrow();
    expect(() => parseCidr('198.18.0.0')).toThrow();
  });
});
