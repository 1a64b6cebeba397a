/**
 * The few address questions rendering and the tracer ask, answered by core's IP module (one parser
 * for the whole workspace). Inputs come from core's node-local state or validated configuration.
 */
import { cidrContains as contains, ipFamilyOf, parseCIDR, parseIP, type IPFamily } from '@kpng/core';

/** The family of an address or CIDR; throws on anything else. */
export function familyOfAddress(text: string): IPFamily {
  const family = ipFamilyOf(text.split('/')[0]!);
  if (family === undefined) throw new Error(`not an IP address: ${text}`);
  return family;
}

/** The address's bytes in network order (4 or 16); throws on malformed input. */
export function addressBytes(text: string): readonly number[] {
  const ip = parseIP(text);
  if (ip === undefined) throw new Error(`not an IP address: ${text}`);
  return ip.bytes;
}

/** A CIDR, or a bare address meaning its host prefix. */
export function isCidr(text: string): boolean {
  return parseCIDR(hostCidr(text)) !== undefined;
}

/** Is `address` inside `cidr` (a bare address is its host prefix)? False across families. */
export function cidrContains(cidr: string, address: string): boolean {
  return contains(hostCidr(cidr), address);
}

/** `a.b.c.d` -> `a.b.c.d/32`, `x::y` -> `x::y/128`; CIDRs pass through. */
export function hostCidr(text: string): string {
  if (text.includes('/')) return text;
  return `${text}/${text.includes(':') ? 128 : 32}`;
}
