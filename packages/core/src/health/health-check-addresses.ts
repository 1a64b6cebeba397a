/**
 * Where per-Service health-check node ports listen: upstream opens them on the addresses
 * `nodePortAddresses` selects (`resolveNodePortAddresses`: the host's interface addresses in the
 * CIDRs, or for `primary` the node's primary IPs), not on every address (observability doc section
 * 6). No selection, a zero-length prefix, or no family that selects addresses means all addresses (`0.0.0.0`), as upstream's
 * health server does when its NodePortAddresses match all; otherwise the selected addresses of the
 * families that select some. The interfaces are read at each reconcile (upstream reads them at each
 * sync), in this process's network namespace, where the sockets are opened.
 */
import { networkInterfaces } from 'node:os';
import { resolveNodePortAddresses } from '../nodeview/node-port-addresses.js';
import type { LocalNode } from '../nodeview/types.js';
import { parseCIDR } from '../util/ip.js';

/** Fixed addresses, or the addresses for the node as it is now (`[]`: none yet). */
export type HealthCheckAddresses = readonly string[] | ((node: LocalNode) => readonly string[]);

export const ALL_ADDRESSES: readonly string[] = ['0.0.0.0'];

/** The addresses of this process's network interfaces (`os.networkInterfaces()`). */
export function hostInterfaceAddresses(): readonly string[] {
  return Object.values(networkInterfaces()).flatMap((addresses) => (addresses ?? []).map((a) => a.address));
}

export function healthCheckAddressesFor(
  nodePortAddresses: readonly string[],
  interfaceAddresses: () => readonly string[] = hostInterfaceAddresses,
): HealthCheckAddresses {
  if (nodePortAddresses.length === 0) return ALL_ADDRESSES;
  if (nodePortAddresses.some((text) => parseCIDR(text)?.prefixLength === 0)) return ALL_ADDRESSES;
  return (node) => {
    const resolved = resolveNodePortAddresses(nodePortAddresses, interfaceAddresses(), node.addresses);
    const selected = [resolved.IPv4, resolved.IPv6].filter((family) => family !== 'all');
    return selected.length === 0 ? ALL_ADDRESSES : selected.flat();
  };
}
