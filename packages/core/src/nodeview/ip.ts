/**
 * The few address operations the node view needs. Inputs come from the model, where every IP and
 * CIDR is already canonical text, so these helpers parse nothing more than they must.
 */
import type { IPFamily } from '../model/types.js';

/** The family of a canonical IP or CIDR: IPv6 text always contains a colon, IPv4 text never does. */
export function familyOf(ipOrCidr: string): IPFamily {
  return ipOrCidr.includes(':') ? 'IPv6' : 'IPv4';
}

/** kube-proxy's `Endpoint.String()` (`net.JoinHostPort`): the identity and sort key of an endpoint. */
export function endpointString(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/** A single-address CIDR: `/32` for IPv4, `/128` for IPv6. */
export function hostCidr(ip: string): string {
  return `${ip}/${familyOf(ip) === 'IPv6' ? 128 : 32}`;
}

/** True when `ip` lies inside `cidr`; false for malformed input or a family mismatch. */
export function cidrContains(cidr: string, ip: string): boolean {
  const slash = cidr.indexOf('/');
  if (slash < 0 || familyOf(cidr) !== familyOf(ip)) return false;
  const prefix = Number(cidr.slice(slash + 1));
  const network = toBigInt(cidr.slice(0, slash));
  const address = toBigInt(ip);
  const width = familyOf(ip) === 'IPv6' ? 128 : 32;
  if (network === undefined || address === undefined) return false;
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > width) return false;
  const hostBits = BigInt(width - prefix);
  return network >> hostBits === address >> hostBits;
}

function toBigInt(ip: string): bigint | undefined {
  return familyOf(ip) === 'IPv6' ? ipv6ToBigInt(ip) : ipv4ToBigInt(ip);
}

function ipv4ToBigInt(ip: string): bigint | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    const octet = Number(part);
    if (part === '' || !Number.isInteger(octet) || octet < 0 || octet > 255) return undefined;
    value = (value << 8n) | BigInt(octet);
  }
  return value;
}

function ipv6ToBigInt(ip: string): bigint | undefined {
  let text = ip;
  // An embedded IPv4 tail (`::ffff:1.2.3.4`) stands for the last two groups.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = ipv4ToBigInt(tail);
    if (v4 === undefined) return undefined;
    text = `${text.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  let value = 0n;
  for (const group of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
    value = (value << 16n) | BigInt(parseInt(group, 16));
  }
  return value;
}
