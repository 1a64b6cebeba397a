/**
 * The strict validators every value passes before a backend writes it into a kernel tool's text
 * (`iptables-restore` input, `ip -batch` lines) or a netlink message. Stricter than the API's
 * parsing on purpose: an address must already be in its one canonical text form (a leading zero,
 * an upper-case hex digit or an IPv4-mapped IPv6 address is refused, not rewritten), so the text a
 * backend writes is exactly a value that passed here, and no byte of it can be syntax.
 */
import type { IPFamily, Protocol } from '../model/types.js';
import { canonicalCIDR, canonicalIP, ipFamilyOf } from '../util/ip.js';

/** An IP address in canonical text form (RFC 5952 for IPv6), of `family` when given. */
export function isCanonicalIP(value: unknown, family?: IPFamily): value is string {
  if (typeof value !== 'string' || canonicalIP(value) !== value) return false;
  return family === undefined || ipFamilyOf(value) === family;
}

/** A CIDR in canonical text form (host bits zero, canonical address), of `family` when given. */
export function isCanonicalCIDR(value: unknown, family?: IPFamily): value is string {
  if (typeof value !== 'string' || canonicalCIDR(value) !== value) return false;
  return family === undefined || ipFamilyOf(value.slice(0, value.indexOf('/'))) === family;
}

/** A TCP/UDP/SCTP port: an integer 1..65535. */
export function isPort(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 65535;
}

/** A NodePort or health-check node port: 0 (none) or a port. */
export function isOptionalPort(value: unknown): value is number {
  return value === 0 || isPort(value);
}

const PROTOCOLS: ReadonlySet<unknown> = new Set<Protocol>(['TCP', 'UDP', 'SCTP']);

export function isProtocol(value: unknown): value is Protocol {
  return PROTOCOLS.has(value);
}

/** ClientIP affinity's `timeoutSeconds`: an integer 1..86400 (the API's own bounds). */
export function isAffinityTimeout(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 86400;
}

/** A Linux interface name (or name prefix): 1-15 of `[A-Za-z0-9_.-]`, not `.` or `..`. */
export function isInterfaceName(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_.-]{1,15}$/.test(value) && value !== '.' && value !== '..';
}

/** A mark bit (`--masquerade-bit`): an integer 0..31. */
export function isMarkBit(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 31;
}

/**
 * A name a backend writes as a chain, set or table name: 1-`max` characters of `[A-Za-z0-9_-]`
 * (every name kpng generates: `KUBE-SVC-<base32>`, `kpng-ipvs`, `kube-ipvs0`).
 */
export function isObjectName(value: unknown, max = 64): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= max && /^[A-Za-z0-9_-]+$/.test(value);
}
