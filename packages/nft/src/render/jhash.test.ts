import { describe, expect, it } from 'vitest';
import { endpointHash, jhash } from './jhash.js';

describe('jhash as nft computes it', () => {
  // Read back from a dynamic set on Linux 6.18 / nft 1.0.6 (x86_64): `update @s { ip saddr . jhash
  // ip daddr . th dport mod 4294967295 seed S }` for UDP datagrams to these destinations.
  it.each([
    ['IPv4', '127.0.0.1', 8080, 7, 0xf56188ea],
    ['IPv4', '127.3.4.5', 53, 7, 0xd5e5c39d],
    ['IPv4', '127.0.0.1', 65535, 7, 0x6b4fdd54],
    ['IPv6', '::1', 8080, 0x2a, 0x852a97be],
  ] as const)('%s %s port %d seed %d', (family, ip, port, seed, expected) => {
    expect(endpointHash(family, ip, port, seed)).toBe(expected);
  });

  it('covers every tail length and more than one block', () => {
    const values = Array.from({ length: 30 }, (_, n) =>
      jhash(
        Uint8Array.from({ length: n }, (_, i) => i * 7),
        1,
      ),
    );
    expect(new Set(values).size).toBe(values.length);
    expect(jhash(new Uint8Array(0), 0)).toBe(0xdeadbeef);
  });

  it('refuses an address of the other family', () => {
    expect(() => endpointHash('IPv4', '2001:db8::1', 80, 1)).toThrow(/not an IPv4/);
  });
});
