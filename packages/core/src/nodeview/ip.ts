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
  // One flat string (see `serviceKey`): the view keeps one per endpoint.
  return (ip.includes(':') ? ['[', ip, ']:', port] : [ip, ':', port]).join('');
}

/** A single-address CIDR: `/32` for IPv4, `/128` for IPv6. */
export function hostCidr(ip: string): string {
  return `${ip}/${familyOf(ip) === 'IPv6' ? 128 : 32}`;
}

/** True when `ip` lies inside `cidr`; false for malformed input or a family mismatch. */
export { cidrContains } from '../util/ip.js';
