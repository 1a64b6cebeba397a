import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalCIDR, cidrContains, withoutNestedCIDRs } from './ip.js';

/**
 * The comparison of every pair that `withoutNestedCIDRs` was before it became a sort and a sweep,
 * kept as the oracle: a range goes when another, wider one contains its network address, or when an
 * earlier entry is the same text.
 */
function quadraticOracle(cidrs: readonly string[]): readonly string[] {
  const prefix = (cidr: string): number => Number(cidr.slice(cidr.indexOf('/') + 1));
  const network = (cidr: string): string => cidr.slice(0, cidr.indexOf('/'));
  return cidrs.filter(
    (c, i) =>
      !cidrs.some((d, j) => j !== i && (prefix(d) < prefix(c) || (d === c && j < i)) && cidrContains(d, network(c))),
  );
}

// Few distinct networks, so that nesting and duplicates are frequent.
const ipv4CIDR = fc
  .tuple(fc.constantFrom(10, 198), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 255 }), fc.nat(32))
  .map(([a, b, c, len]) => canonicalCIDR(`${a}.${b}.${c}.${c & 0xf0}/${len}`)!);
const ipv6CIDR = fc
  .tuple(fc.constantFrom('2001:db8', '2001:db9'), fc.nat(3), fc.nat(0xffff), fc.nat(128))
  .map(([head, g, tail, len]) => canonicalCIDR(`${head}:${g}::${tail.toString(16)}/${len}`)!);
const cidrList = fc.array(fc.oneof(ipv4CIDR, ipv6CIDR), { maxLength: 60 });

describe('withoutNestedCIDRs', () => {
  it('drops the same entries as the comparison of every pair (canonical CIDRs, both families)', () => {
    fc.assert(
      fc.property(cidrList, (cidrs) => {
        expect(withoutNestedCIDRs(cidrs)).toEqual(quadraticOracle(cidrs));
      }),
      { numRuns: 2000 },
    );
  });

  it('returns the same array when nothing is nested', () => {
    const cidrs = ['10.0.0.0/24', '10.0.1.0/24', '2001:db8::/64'];
    expect(withoutNestedCIDRs(cidrs)).toBe(cidrs);
  });

  it('keeps the first of equal entries, in the input order', () => {
    expect(withoutNestedCIDRs(['10.0.1.0/24', '10.0.0.0/8', '10.0.0.0/8', '203.0.113.0/24'])).toEqual([
      '10.0.0.0/8',
      '203.0.113.0/24',
    ]);
  });

  it('keeps an entry that is not a CIDR, and it covers nothing', () => {
    expect(withoutNestedCIDRs(['not a cidr', '10.0.0.0/8', '10.1.0.0/16', '10.0.0.0/x'])).toEqual([
      'not a cidr',
      '10.0.0.0/8',
      '10.0.0.0/x',
    ]);
  });

  it('never keeps two entries where one contains the other (both families)', () => {
    fc.assert(
      fc.property(cidrList, (cidrs) => {
        const kept = withoutNestedCIDRs(cidrs);
        for (const [i, c] of kept.entries()) {
          for (const [j, d] of kept.entries()) {
            if (i !== j) expect(cidrContains(d, c.slice(0, c.indexOf('/')))).toBe(false);
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
