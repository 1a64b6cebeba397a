/**
 * Minimal IP arithmetic for rendering (family filtering, host prefixes) and for the tracer's CIDR
 * matches. Inputs come from core's node-local state, which holds canonical address text.
 */
import type { IPFamily } from '@kpng/core';

export function familyOfAddress(text: string): IPFamily {
  return text.includes(':') ? 'IPv6' : 'IPv4';
}

/** Address (or CIDR) text -> [value, bits of the family]; throws on malformed input. */
export function parseAddress(text: string): { readonly value: bigint; readonly bits: 32 | 128 } {
  if (text.includes(':')) return { value: parseIPv6(text), bits: 128 };
  const parts = text.split('.');
  if (parts.length !== 4) throw new Error(`not an IPv4 address: ${text}`);
  let value = 0n;
  for (const part of parts) {
    const n = Number(part);
    if (!/^\d{1,3}$/.test(part) || n > 255) throw new Error(`not an IPv4 address: ${text}`);
    value = (value << 8n) | BigInt(n);
  }
  return { value, bits: 32 };
}

function parseIPv6(text: string): bigint {
  const halves = text.split('::');
  if (halves.length > 2) throw new Error(`not an IPv6 address: ${text}`);
  const groups = (half: string | undefined): string[] => (half === undefined || half === '' ? [] : half.split(':'));
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) throw new Error(`not an IPv6 address: ${text}`);
  let value = 0n;
  for (const group of [...head, ...Array<string>(missing).fill('0'), ...tail]) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) throw new Error(`not an IPv6 address: ${text}`);
    value = (value << 16n) | BigInt(parseInt(group, 16));
  }
  return value;
}

export interface Cidr {
  readonly value: bigint;
  readonly bits: 32 | 128;
  readonly prefix: number;
}

export function parseCidr(text: string): Cidr {
  const [address = '', prefixText] = text.split('/');
  const { value, bits } = parseAddress(address);
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) throw new Error(`bad prefix in ${text}`);
  return { value, bits, prefix };
}

export function cidrContains(cidr: string | Cidr, address: string): boolean {
  const range = typeof cidr === 'string' ? parseCidr(cidr) : cidr;
  const ip = parseAddress(address);
  if (ip.bits !== range.bits) return false;
  const shift = BigInt(range.bits - range.prefix);
  return ip.value >> shift === range.value >> shift;
}

/** `a.b.c.d` -> `a.b.c.d/32`, `x::y` -> `x::y/128`; CIDRs pass through. */
export function hostCidr(text: string): string {
  if (text.includes('/')) return text;
  return `${text}/${familyOfAddress(text) === 'IPv4' ? 32 : 128}`;
}
