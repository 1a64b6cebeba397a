import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { addressRange, disjointBoxes, formatRange, type Box } from './ranges.js';

const box = (first: number, last: number, portFirst: number, portLast: number): Box => ({
  peers: { first: BigInt(first), last: BigInt(last) },
  ports: { first: portFirst, last: portLast },
});

function covered(boxes: readonly Box[], address: number, port: number): boolean {
  return boxes.some(
    (b) =>
      b.peers.first <= BigInt(address) &&
      BigInt(address) <= b.peers.last &&
      b.ports.first <= port &&
      port <= b.ports.last,
  );
}

describe('ranges', () => {
  test('addresses and CIDRs as ranges, per family', () => {
    expect(addressRange('198.18.1.0/24', 'IPv4')).toEqual({ first: 0xc6120100n, last: 0xc61201ffn });
    expect(addressRange('198.18.1.0/24', 'IPv6')).toBeUndefined();
    expect(formatRange(addressRange('2001:db8::/126', 'IPv6')!, 'IPv6')).toBe('2001:db8::-2001:db8::3');
    expect(formatRange(addressRange('198.18.1.7', 'IPv4')!, 'IPv4')).toBe('198.18.1.7');
  });

  test('overlapping boxes become disjoint ones covering the same points', () => {
    expect(disjointBoxes([box(0, 255, 80, 90), box(11, 11, 80, 80), box(11, 11, 100, 100)])).toEqual([
      box(0, 10, 80, 90),
      box(11, 11, 80, 90),
      box(11, 11, 100, 100),
      box(12, 255, 80, 90),
    ]);
  });

  test('touching stretches with the same ports merge', () => {
    expect(disjointBoxes([box(0, 9, 1, 1), box(10, 19, 1, 1)])).toEqual([box(0, 19, 1, 1)]);
  });

  test('property: the same coverage, and no two boxes overlap', () => {
    const arbitraryBox = fc
      .tuple(
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 0, max: 4 }),
      )
      .map(([a, w, p, pw]) => box(a, a + w, p, p + pw));
    fc.assert(
      fc.property(fc.array(arbitraryBox, { maxLength: 8 }), (boxes) => {
        const out = disjointBoxes(boxes);
        for (let address = 0; address <= 36; address++)
          for (let port = 0; port <= 15; port++)
            expect(covered(out, address, port)).toBe(covered(boxes, address, port));
        out.forEach((a, i) =>
          out.slice(i + 1).forEach((b) => {
            const peersOverlap = a.peers.first <= b.peers.last && b.peers.first <= a.peers.last;
            const portsOverlap = a.ports.first <= b.ports.last && b.ports.first <= a.ports.last;
            expect(peersOverlap && portsOverlap).toBe(false);
          }),
        );
      }),
    );
  });
});
