/**
 * The kernel's `jhash` (include/linux/jhash.h, Bob Jenkins' lookup3) as nft's `jhash EXPR mod N
 * seed S` computes it (net/netfilter/nft_hash.c: `reciprocal_scale(jhash(regs, len, seed), N)`),
 * so a rule can hold, as a constant, the hash the kernel computes from packet fields.
 *
 * ClientIP affinity entries are `client . jhash(endpoint address . endpoint port, seed K)`: the
 * record rule hashes the DNATed destination, each lookup rule carries its endpoint's hash. Checked
 * against the kernel in `jhash.test.ts` (values read back from a dynamic set) and by the lab e2e.
 */
import { endianness } from 'node:os';
import type { IPFamily } from '@kpng/core';
import { addressBytes } from './ip.js';

/** `mod` of the affinity hash: the largest nft accepts. */
export const AFFINITY_HASH_MOD = 0xffffffff;

const rol = (x: number, k: number): number => ((x << k) | (x >>> (32 - k))) >>> 0;
const LITTLE_ENDIAN = endianness() === 'LE';

/** `jhash(key, key.length, seed)`: full 12-byte blocks are read in CPU byte order, the tail bytewise. */
export function jhash(key: Uint8Array, seed: number): number {
  let length = key.length;
  let a = (0xdeadbeef + length + seed) >>> 0;
  let b = a;
  let c = a;
  let k = 0;
  const word = (i: number): number => {
    const [b0, b1, b2, b3] = [key[i] ?? 0, key[i + 1] ?? 0, key[i + 2] ?? 0, key[i + 3] ?? 0];
    return (LITTLE_ENDIAN ? b0 | (b1 << 8) | (b2 << 16) | (b3 << 24) : (b0 << 24) | (b1 << 16) | (b2 << 8) | b3) >>> 0;
  };
  while (length > 12) {
    a = (a + word(k)) >>> 0;
    b = (b + word(k + 4)) >>> 0;
    c = (c + word(k + 8)) >>> 0;
    a = (a - c) >>> 0;
    a = (a ^ rol(c, 4)) >>> 0;
    c = (c + b) >>> 0;
    b = (b - a) >>> 0;
    b = (b ^ rol(a, 6)) >>> 0;
    a = (a + c) >>> 0;
    c = (c - b) >>> 0;
    c = (c ^ rol(b, 8)) >>> 0;
    b = (b + a) >>> 0;
    a = (a - c) >>> 0;
    a = (a ^ rol(c, 16)) >>> 0;
    c = (c + b) >>> 0;
    b = (b - a) >>> 0;
    b = (b ^ rol(a, 19)) >>> 0;
    a = (a + c) >>> 0;
    c = (c - b) >>> 0;
    c = (c ^ rol(b, 4)) >>> 0;
    b = (b + a) >>> 0;
    length -= 12;
    k += 12;
  }
  if (length === 0) return c;
  // The tail, byte by byte (little-endian whatever the CPU), as the kernel's switch falls through.
  const tail = [0, 0, 0];
  for (let i = 0; i < length; i++)
    tail[i >> 2] = ((tail[i >> 2] as number) + ((key[k + i] ?? 0) << ((i & 3) * 8))) >>> 0;
  a = (a + (tail[0] as number)) >>> 0;
  b = (b + (tail[1] as number)) >>> 0;
  c = (c + (tail[2] as number)) >>> 0;
  c = (c ^ b) >>> 0;
  c = (c - rol(b, 14)) >>> 0;
  a = (a ^ c) >>> 0;
  a = (a - rol(c, 11)) >>> 0;
  b = (b ^ a) >>> 0;
  b = (b - rol(a, 25)) >>> 0;
  c = (c ^ b) >>> 0;
  c = (c - rol(b, 16)) >>> 0;
  a = (a ^ c) >>> 0;
  a = (a - rol(c, 4)) >>> 0;
  b = (b ^ a) >>> 0;
  b = (b - rol(a, 14)) >>> 0;
  c = (c ^ b) >>> 0;
  c = (c - rol(b, 24)) >>> 0;
  return c;
}

/** The kernel's `reciprocal_scale(value, modulus)`: `value * modulus >> 32`. */
export function reciprocalScale(value: number, modulus: number): number {
  return Number((BigInt(value >>> 0) * BigInt(modulus >>> 0)) >> 32n);
}

/**
 * What `jhash <addr> daddr . th dport mod AFFINITY_HASH_MOD seed <seed>` yields after DNAT to
 * `ip`:`port`: the registers hold the address (4 or 16 bytes), then the port in network order
 * padded with two zero bytes.
 */
export function endpointHash(family: IPFamily, ip: string, port: number, seed: number): number {
  const bytes = addressBytes(ip);
  const size = bytes.length;
  if ((family === 'IPv4') !== (size === 4)) throw new Error(`${ip} is not an ${family} address`);
  const key = new Uint8Array(size + 4);
  key.set(bytes);
  key[size] = (port >> 8) & 0xff;
  key[size + 1] = port & 0xff;
  return reciprocalScale(jhash(key, seed), AFFINITY_HASH_MOD);
}
