/**
 * Elements that come from the node and the configuration rather than from a Service: which
 * addresses accept NodePorts, the pod CIDRs of a CIDR-based local detector, the service CIDRs.
 */
import { nodePortSelection, type FamilyNodePortSelection, type IPFamily, type LocalNode } from '@kpng/core';
import { cidrsOfFamily, type NftConfig } from './config.js';
import { podCIDRsFor, type RenderContext } from './context.js';
import { cidrContains } from './ip.js';
import { SET } from './names.js';
import type { ElementSpec } from './types.js';

/**
 * The family's `nodePortAddresses` as core reads the setting (`nodePortSelection`: `primary` is the
 * Node's primary IP of the family as a host CIDR, a family without one matches all, ...). The
 * backend does not decide which addresses accept NodePorts; it renders core's answer.
 */
export function nodePortSelectionOf(config: NftConfig, family: IPFamily, node: LocalNode): FamilyNodePortSelection {
  const setting = config.nodePortAddresses === 'primary' ? ['primary'] : config.nodePortAddresses;
  return nodePortSelection(setting, node.addresses)[family];
}

/**
 * The `nodeport-ips` elements: the selection's CIDRs, or the whole family (`0.0.0.0/0`, `::/0`) when
 * it matches all; the rule's `fib daddr type local` keeps either to the node's own addresses.
 */
function nodePortAddresses(ctx: RenderContext, node: LocalNode): readonly string[] {
  const selection = nodePortSelectionOf(ctx.config, ctx.syntax.family, node);
  return selection === 'all' ? [`${ctx.syntax.anyAddr}/0`] : selection;
}

/** Whether `ip` is a destination this family serves NodePorts on (stale UDP flow cleanup). */
export function nodePortAddressMatcher(config: NftConfig, family: IPFamily, node: LocalNode): (ip: string) => boolean {
  const selection = nodePortSelectionOf(config, family, node);
  return selection === 'all' ? () => true : (ip) => selection.some((cidr) => cidrContains(cidr, ip));
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
