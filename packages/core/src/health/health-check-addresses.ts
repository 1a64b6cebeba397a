/**
 * Where per-Service health-check node ports listen: upstream opens them on the addresses
 * `nodePortAddresses` selects, not on every address (observability doc section 6). `primary` (the
 * nftables default) is the node's primary IP of each family; CIDRs select the node's addresses in
 * them; no selection, or a zero-length prefix, means all addresses.
 */
import type { LocalNode } from '../nodeview/types.js';
import { cidrContains, ipFamilyOf, parseCIDR } from '../util/ip.js';

/** Fixed addresses, or the addresses for the node as it is now (`[]`: none yet). */
export type HealthCheckAddresses = readonly string[] | ((node: LocalNode) => readonly string[]);

export const ALL_ADDRESSES: readonly string[] = ['0.0.0.0'];

export function healthCheckAddressesFor(nodePortAddresses: readonly string[]): HealthCheckAddresses {
  if (nodePortAddresses.length === 0) return ALL_ADDRESSES;
  if (nodePortAddresses.length === 1 && nodePortAddresses[0] === 'primary') return primaryAddresses;
  const cidrs = nodePortAddresses.flatMap((text) => parseCIDR(text) ?? []);
  if (cidrs.some((c) => c.prefixLength === 0)) return ALL_ADDRESSES;
  return (node) => node.addresses.filter((address) => cidrs.some((cidr) => cidrContains(cidr, address)));
}

/** The first address of each family: the node's primary IPs. */
function primaryAddresses(node: LocalNode): readonly string[] {
  const seen = new Set<string>();
  return node.addresses.filter((address) => {
    const family = ipFamilyOf(address);
    if (family === undefined || seen.has(family)) return false;
    seen.add(family);
    return true;
  });
}
