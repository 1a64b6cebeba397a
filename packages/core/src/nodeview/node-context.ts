import type { NodeModel, NodeName } from '../model/types.js';
import type { LocalNode } from './types.js';

/** The node label that places a node in a zone; topology hints are matched against it. */
export const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** What Service logic needs to know about the node it runs for. */
export interface NodeContext {
  readonly name: NodeName;
  readonly zone?: string;
  /** InternalIP then ExternalIP addresses, canonical: the first of a family is the node's primary IP. */
  readonly addresses: readonly string[];
}

/**
 * The node's own view of itself. A node missing from the model (not yet seen, or deleted) still
 * gets a proxy: by name only, no zone (so zone hints never filter), and eligible, because a
 * node we know nothing about is not known to be going away.
 */
export function localNodeOf(
  name: NodeName,
  node: NodeModel | undefined,
  serviceCIDRs: readonly string[] = [],
): LocalNode {
  const cidrs = serviceCIDRs.length > 0 ? { serviceCIDRs } : {};
  if (node === undefined) {
    return { name, labels: {}, podCIDRs: [], addresses: [], eligible: true, ...cidrs };
  }
  const zone = node.labels[ZONE_LABEL];
  return {
    name,
    labels: node.labels,
    ...(zone !== undefined && zone !== '' ? { zone } : {}),
    podCIDRs: node.podCIDRs,
    addresses: node.addresses,
    eligible: node.eligible,
    ...cidrs,
  };
}

export function nodeContextOf(node: LocalNode): NodeContext {
  return {
    name: node.name,
    ...(node.zone !== undefined ? { zone: node.zone } : {}),
    addresses: node.addresses,
  };
}

export function sameNodeContext(a: NodeContext, b: NodeContext): boolean {
  return (
    a.name === b.name &&
    a.zone === b.zone &&
    a.addresses.length === b.addresses.length &&
    a.addresses.every((addr, i) => addr === b.addresses[i])
  );
}
