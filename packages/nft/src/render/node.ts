/**
 * Elements that come from the node and the configuration rather than from a Service: which
 * addresses accept NodePorts, the pod CIDRs of a CIDR-based local detector, the service CIDRs.
 */
import type { LocalNode } from '@kpng/core';
import { cidrsOfFamily } from './config.js';
import { podCIDRsFor, type RenderContext } from './context.js';
import { familyOfAddress, hostCidr } from './ip.js';
import { SET } from './names.js';
import type { ElementSpec } from './types.js';

/** `primary`: the node's first address of the family (kube-proxy's nftables default); else the CIDRs. */
export function nodePortAddresses(ctx: RenderContext, node: LocalNode): string[] {
  const { config, syntax } = ctx;
  if (config.nodePortAddresses !== 'primary') return cidrsOfFamily(config.nodePortAddresses, syntax.family);
  const primary = node.addresses.find((address) => familyOfAddress(address) === syntax.family);
  return primary === undefined ? [] : [hostCidr(primary)];
}

/** The one element of the resync canary set (`0.0.0.0` / `::`). */
export function canaryElement(ctx: RenderContext): ElementSpec {
  return { container: SET.canary, key: [ctx.syntax.anyAddr] };
}

export function renderNodeElements(ctx: RenderContext, node: LocalNode): ElementSpec[] {
  const { config, syntax } = ctx;
  const interval = (container: string, cidrs: readonly string[]): ElementSpec[] =>
    [...new Set(cidrs)].map((cidr) => ({ container, key: [cidr] }));
  return [
    canaryElement(ctx),
    ...interval(SET.nodePortIPs, nodePortAddresses(ctx, node)),
    ...interval(SET.podCIDRs, podCIDRsFor(config, syntax.family, node)),
    ...interval(SET.serviceCIDRs, cidrsOfFamily(serviceCIDRsOf(config, node), syntax.family)),
  ];
}

/**
 * The cluster's ServiceCIDR objects when it has any (core puts their union in the node's view, as
 * upstream's proxier receives them through `OnServiceCIDRsChanged`); else the configured ranges
 * (`--service-cidrs`), for clusters that serve no ServiceCIDRs.
 */
export function serviceCIDRsOf(
  config: { readonly serviceCIDRs: readonly string[] },
  node: LocalNode,
): readonly string[] {
  return node.serviceCIDRs !== undefined && node.serviceCIDRs.length > 0 ? node.serviceCIDRs : config.serviceCIDRs;
}
