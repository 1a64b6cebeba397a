/**
 * Where per-Service health-check node ports listen: upstream opens them on the addresses
 * `nodePortAddresses` selects (the host's interface addresses in the CIDRs, or for `primary` the
 * node's primary IPs), not on every address (observability doc section 6). No selection, a
 * zero-length prefix, or no family that selects addresses means all addresses (`0.0.0.0`), as
 * upstream's health server does when its NodePortAddresses match all; otherwise the selected
 * addresses of the families that select some. This file reads no interface: the sync stage
 * resolves the setting before each sync (`nodeview/interface-addresses.ts`, one resolution for the
 * backend and these ports) and the ports take the synced node's `nodePortAddresses`.
 */
import { nodePortSelectingFamilies } from '../nodeview/node-port-addresses.js';
import type { LocalNode } from '../nodeview/types.js';
import { parseCIDR } from '../util/ip.js';

/** kube-proxy's `nodePortAddresses` setting (`['primary']` or CIDRs), to listen where it selects. */
export interface NodePortSelection {
  readonly nodePortAddresses: readonly string[];
}

/**
 * Fixed addresses; where `nodePortAddresses` selects, as the sync stage resolved it for the node;
 * or the addresses for the node as it is now. `[]`: none (yet).
 */
export type HealthCheckAddresses = readonly string[] | NodePortSelection | ((node: LocalNode) => readonly string[]);

export const ALL_ADDRESSES: readonly string[] = ['0.0.0.0'];

/** The health-check addresses of a `nodePortAddresses` setting: every address, or its selection. */
export function healthCheckAddressesFor(nodePortAddresses: readonly string[]): HealthCheckAddresses {
  if (nodePortAddresses.length === 0) return ALL_ADDRESSES;
  if (nodePortAddresses.some((text) => parseCIDR(text)?.prefixLength === 0)) return ALL_ADDRESSES;
  return { nodePortAddresses: [...nodePortAddresses] };
}

export function isNodePortSelection(addresses: HealthCheckAddresses): addresses is NodePortSelection {
  return typeof addresses === 'object' && 'nodePortAddresses' in addresses;
}

/**
 * The addresses to listen on for `node` as synced: with a `nodePortAddresses` setting, the
 * resolved addresses (`node.nodePortAddresses`) of the families it selects; none before a node,
 * or a resolution, is known.
 */
export function healthCheckAddressesOn(
  addresses: HealthCheckAddresses,
  node: LocalNode | undefined,
): readonly string[] {
  if (typeof addresses !== 'function' && !isNodePortSelection(addresses)) return addresses;
  if (node === undefined) return [];
  if (typeof addresses === 'function') return addresses(node);
  const families = nodePortSelectingFamilies(addresses.nodePortAddresses, node.addresses);
  if (families.length === 0) return ALL_ADDRESSES;
  const resolved = node.nodePortAddresses;
  if (resolved === undefined) return [];
  return families.flatMap((family) => {
    const selected = resolved[family];
    return selected === 'all' ? [] : selected;
  });
}
