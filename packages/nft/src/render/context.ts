/**
 * What rendering one family needs besides the Services: its syntax, the configuration, and the
 * local-traffic detector as it applies to this node right now (NodeCIDR depends on the node's
 * podCIDRs, and a detector without its CIDR or interface is a no-op, as upstream's IsImplemented).
 */
import type { IPFamily, LocalNode } from '@kpng/core';
import { cidrsOfFamily, type NftConfig } from './config.js';
import { familySyntax, type FamilySyntax } from './family.js';
import { CHAIN, SET } from './names.js';
import type { ChainSpec } from './types.js';

export interface DetectorMatch {
  /** Matches traffic from a local pod. */
  readonly match: string;
  readonly nomatch: string;
}

export interface RenderContext {
  readonly syntax: FamilySyntax;
  readonly config: NftConfig;
  readonly detector: DetectorMatch | undefined;
  /** The rule ClusterIP traffic runs before DNAT to mark it for masquerading, if any (semantics 3.14). */
  readonly clusterMasquerade: string | undefined;
  /** Chains built so far, by name: a chain's rules depend only on its name and this context. */
  readonly chainCache: Map<string, ChainSpec>;
}

export function detectorFor(config: NftConfig, syntax: FamilySyntax, node: LocalNode): DetectorMatch | undefined {
  const detector = config.localDetector;
  const bySet = (): DetectorMatch => ({
    match: `${syntax.addr} saddr @${SET.podCIDRs}`,
    nomatch: `${syntax.addr} saddr != @${SET.podCIDRs}`,
  });
  switch (detector.mode) {
    case 'None':
      return undefined;
    case 'ClusterCIDR':
      return cidrsOfFamily(detector.clusterCIDRs, syntax.family).length > 0 ? bySet() : undefined;
    case 'NodeCIDR':
      return cidrsOfFamily(node.podCIDRs, syntax.family).length > 0 ? bySet() : undefined;
    case 'BridgeInterface':
      return { match: `iifname "${detector.bridge}"`, nomatch: `iifname != "${detector.bridge}"` };
    case 'InterfaceNamePrefix':
      return { match: `iifname "${detector.prefix}*"`, nomatch: `iifname != "${detector.prefix}*"` };
  }
}

/** The CIDRs that make up `pod-cidrs` for this family (CIDR detector modes only). */
export function podCIDRsFor(config: NftConfig, family: IPFamily, node: LocalNode): string[] {
  const detector = config.localDetector;
  if (detector.mode === 'ClusterCIDR') return cidrsOfFamily(detector.clusterCIDRs, family);
  if (detector.mode === 'NodeCIDR') return cidrsOfFamily(node.podCIDRs, family);
  return [];
}

export function renderContext(config: NftConfig, family: IPFamily, node: LocalNode): RenderContext {
  const syntax = familySyntax(family);
  const detector = detectorFor(config, syntax, node);
  const jump = `jump ${CHAIN.markForMasquerade}`;
  const clusterMasquerade = config.masqueradeAll
    ? jump
    : detector !== undefined
      ? `${detector.nomatch} ${jump}`
      : undefined;
  return { syntax, config, detector, clusterMasquerade, chainCache: new Map() };
}

/** Two contexts render every chain identically (so a partial sync may keep existing chains). */
export function sameChainRendering(a: RenderContext, b: RenderContext): boolean {
  return (
    a.config === b.config &&
    a.syntax === b.syntax &&
    a.clusterMasquerade === b.clusterMasquerade &&
    a.detector?.match === b.detector?.match
  );
}
