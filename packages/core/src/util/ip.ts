import type { IPFamily } from '../model/types.js';

/**
 * IP and CIDR parsing with one canonical text form per address, so that equal addresses compare
 * equal as strings everywhere in the model (IPv6 per RFC 5952: lower case, no leading zeros, the
 * longest run of two or more zero groups shortened to `::`).
 *
 * Parsing is as lenient as Kubernetes' legacy `ParseIPSloppy`, because objects stored before strict
 * validation still exist: IPv4 octets may carry leading zeros (read as decimal), and an IPv4-mapped
 * IPv6 address (`::ffff:198.18.0.1`) is the IPv4 address it maps, as Go's `To4()` treats it. Zones
 * (`fe80::1%eth0`) are never valid in Kubernetes objects and are rejected.
 */

export interface IPAddress {
  readonly family: IPFamily;
  /** 4 bytes for IPv4, 16 for IPv6, network order. */
  readonly bytes: readonly number[];
}

export interface CIDR {
  readonly family: IPFamily;
  /** The network address: host bits are always zero. */
  readonly network: readonly number[];
  readonly prefixLength: number;
}

const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;
const PREFIX_LENGTH = /^[0-9]{1,3}$/;

/** Dotted decimal, 1 to 3 digits per octet; a hand-written loop, as this runs for every endpoint. */
function parseIPv4Bytes(text: string): number[] | undefined {
  const bytes = [0, 0, 0, 0];
  let octet = 0;
  let digits = 0;
  let value = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (++digits > 3) return undefined;
      value = value * 10 + (c - 48);
    } else if (c === 46 && digits > 0 && octet < 3 && value <= 255) {
      bytes[octet++] = value;
      digits = 0;
      value = 0;
    } else {
      return undefined;
    }
  }
  if (digits === 0 || octet !== 3 || value > 255) return undefined;
  bytes[3] = value;
  return bytes;
}

/** Parses hex groups, plus a dotted IPv4 tail in the last position; undefined on any error. */
function parseGroups(text: string, dottedTailAllowed: boolean): number[] | undefined {
  if (text === '') return [];
  const parts = text.split(':');
  const groups: number[] = [];
  for (const [i, part] of parts.entries()) {
    if (dottedTailAllowed && i === parts.length - 1 && part.includes('.')) {
      const v4 = parseIPv4Bytes(part);
      if (!v4) return undefined;
      groups.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
    } else {
      if (!HEX_GROUP.test(part)) return undefined;
      groups.push(parseInt(part, 16));
    }
  }
  return groups;
}

function parseIPv6Bytes(text: string): number[] | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = parseGroups(halves[0]!, halves.length === 1);
  const tail = halves.length === 2 ? parseGroups(halves[1]!, true) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  // `::` stands for at least one zero group; without it the address must have exactly eight.
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

function isIPv4Mapped(bytes: readonly number[]): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

export function parseIP(text: string): IPAddress | undefined {
  if (typeof text !== 'string' || text.length > 45) return undefined;
  if (!text.includes(':')) {
    const bytes = parseIPv4Bytes(text);
    return bytes && { family: 'IPv4', bytes };
  }
  const bytes = parseIPv6Bytes(text);
  if (!bytes) return undefined;
  if (isIPv4Mapped(bytes)) return { family: 'IPv4', bytes: bytes.slice(12) };
  return { family: 'IPv6', bytes };
}

function formatIPv6(bytes: readonly number[]): string {
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((bytes[i]! << 8) | bytes[i + 1]!);
  // RFC 5952 4.2: compress the longest run of zero groups (the first on a tie), never a single one.
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let end = i;
    while (end < 8 && groups[end] === 0) end++;
    if (end - i > bestLength) [bestStart, bestLength] = [i, end - i];
    i = end;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  const head = hex.slice(0, bestStart).join(':');
  const tail = hex.slice(bestStart + bestLength).join(':');
  return `${head}::${tail}`;
}

export function formatIP(ip: IPAddress): string {
  const b = ip.bytes;
  return ip.family === 'IPv4' ? `${b[0]}.${b[1]}.${b[2]}.${b[3]}` : formatIPv6(b);
}

/**
 * `formatIP(ip)` for `ip` parsed from `text`: `text` itself when it already is that (nearly always).
 * A formatted address of 13 characters or more is a V8 concatenation of its parts, about twice the
 * memory of the flat string a JSON parse made, and the model, the node view and the backends keep
 * ~100k endpoint addresses at s10k.
 */
export function formatParsedIP(ip: IPAddress, text: string): string {
  const canonical = formatIP(ip);
  return canonical === text ? text : canonical;
}

/** The canonical text form of `text`, or undefined if it is not an IP address. */
export function canonicalIP(text: string): string | undefined {
  const ip = parseIP(text);
  return ip && formatParsedIP(ip, text);
}

export function ipFamilyOf(text: string): IPFamily | undefined {
  return parseIP(text)?.family;
}

function maskBytes(bytes: readonly number[], prefixLength: number): number[] {
  return bytes.map((byte, i) => {
    const bitsInByte = Math.min(8, Math.max(0, prefixLength - i * 8));
    return byte & ((0xff << (8 - bitsInByte)) & 0xff);
  });
}

/** Parses `address/length`; host bits are cleared (`203.0.113.7/24` is `203.0.113.0/24`). */
export function parseCIDR(text: string): CIDR | undefined {
  if (typeof text !== 'string') return undefined;
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIP(text.slice(0, slash));
  const lengthText = text.slice(slash + 1);
  if (!ip || !PREFIX_LENGTH.test(lengthText)) return undefined;
  let prefixLength = Number(lengthText);
  // An IPv4-mapped network is an IPv4 network only if its prefix covers the ::ffff:0:0/96 part.
  if (ip.family === 'IPv4' && text.slice(0, slash).includes(':')) {
    if (prefixLength < 96) return undefined;
    prefixLength -= 96;
  }
  if (prefixLength > ip.bytes.length * 8) return undefined;
  return { family: ip.family, network: maskBytes(ip.bytes, prefixLength), prefixLength };
}

export function formatCIDR(cidr: CIDR): string {
  return `${formatIP({ family: cidr.family, bytes: cidr.network })}/${cidr.prefixLength}`;
}

/** The canonical text form of a CIDR, or undefined if `text` is not one. */
export function canonicalCIDR(text: string): string | undefined {
  const cidr = parseCIDR(text);
  return cidr && formatCIDR(cidr);
}

/** True when `ip` lies inside `cidr`; false for anything unparsable or of the other family. */
export function cidrContains(cidr: CIDR | string, ip: IPAddress | string): boolean {
  const network = typeof cidr === 'string' ? parseCIDR(cidr) : cidr;
  const address = typeof ip === 'string' ? parseIP(ip) : ip;
  if (!network || !address || network.family !== address.family) return false;
  const masked = maskBytes(address.bytes, network.prefixLength);
  return masked.every((byte, i) => byte === network.network[i]);
}

/**
 * A list of ranges means their union, so a range inside another adds nothing; dropping it
 * keeps the list one set of disjoint ranges (CIDRs are nested or disjoint), which interval sets need:
 * nftables refuses overlapping elements ("File exists"). The kept entries stay in their order.
 *
 * O(n log n): the ranges of one family sorted by network address, then by prefix length (the wider
 * first), then by position, and swept once. Since two CIDRs are nested or disjoint, a range whose
 * network address lies inside the last range kept is inside it (or equal to it: the later copy goes);
 * otherwise it is disjoint from every range kept so far. `loadBalancerSourceRanges` is user input
 * of any length, and a comparison of every pair is quadratic in it (its stall: docs/PERFORMANCE.md).
 *
 * An entry that is not a CIDR is kept and covers nothing (the model holds only canonical CIDRs: the
 * conversion refuses any other text).
 */
export function withoutNestedCIDRs(cidrs: readonly string[]): readonly string[] {
  if (cidrs.length < 2) return cidrs;
  const parsed: { readonly cidr: CIDR; readonly index: number }[] = [];
  for (const [index, text] of cidrs.entries()) {
    const cidr = parseCIDR(text);
    if (cidr) parsed.push({ cidr, index });
  }
  parsed.sort((a, b) => compareCIDRs(a.cidr, b.cidr) || a.index - b.index);
  const dropped = new Uint8Array(cidrs.length);
  let kept: CIDR | undefined;
  let drops = 0;
  for (const { cidr, index } of parsed) {
    if (kept && kept.family === cidr.family && networkContains(kept, cidr.network)) {
      dropped[index] = 1;
      drops++;
    } else {
      kept = cidr;
    }
  }
  return drops === 0 ? cidrs : cidrs.filter((_, i) => dropped[i] === 0);
}

/** Family, then network address, then prefix length (the wider range first). */
function compareCIDRs(a: CIDR, b: CIDR): number {
  if (a.family !== b.family) return a.family === 'IPv4' ? -1 : 1;
  for (let i = 0; i < a.network.length; i++) {
    const d = a.network[i]! - b.network[i]!;
    if (d !== 0) return d;
  }
  return a.prefixLength - b.prefixLength;
}

/** True when the address `bytes` (of `cidr`'s family) lies inside `cidr`. */
function networkContains(cidr: CIDR, bytes: readonly number[]): boolean {
  const full = cidr.prefixLength >> 3;
  for (let i = 0; i < full; i++) if (bytes[i] !== cidr.network[i]) return false;
  const rest = cidr.prefixLength & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (bytes[full]! & mask) === cidr.network[full];
}
