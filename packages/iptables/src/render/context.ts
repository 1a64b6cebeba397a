/**
 * What rendering one family needs besides the Services: the family's addresses and the
 * local-traffic detector as it applies to this node right now (NodeCIDR reads the node's podCIDRs;
 * a detector without its CIDR or interface is a no-op, as upstream's IsImplemented()).
 */
import { cidrContains, ipFamilyOf, type IPFamily, type LocalNode } from '@kpng/core';
import { masqueradeMark, type IptablesConfig } from './config.js';

export interface DetectorMatch {
  /** Matches traffic from a local pod (`-s 10.0.0.0/8`, `-i cbr0`, `-i veth+`). */
  readonly local: string;
  readonly notLocal: string;
}

export interface RenderContext {
  readonly family: IPFamily;
  readonly config: IptablesConfig;
  readonly detector: DetectorMatch | undefined;
  readonly mark: string;
  /** The node's addresses in this family (the firewall's allow-from-node check, NodePort addresses). */
  readonly nodeIPs: readonly string[];
  /** Omit per-endpoint comments (upstream's large-cluster mode). */
  readonly terse: boolean;
  /** The nfacct counters the node holds (see iptables/nfacct.ts): only those are matched in rules. */
  readonly nfacct: ReadonlySet<string>;
}

function firstOfFamily(cidrs: readonly string[], family: IPFamily): string | undefined {
  return cidrs.find((cidr) => ipFamilyOf(cidr.split('/')[0] ?? '') === family);
}

export function detectorFor(config: IptablesConfig, family: IPFamily, node: LocalNode): DetectorMatch | undefined {
  const d = config.localDetector;
  const bySource = (cidr: string | undefined): DetectorMatch | undefined =>
    cidr === undefined ? undefined : { local: `-s ${cidr}`, notLocal: `! -s ${cidr}` };
  switch (d.mode) {
    case 'None':
      return undefined;
    case 'ClusterCIDR':
      return bySource(firstOfFamily(d.clusterCIDRs, family));
    case 'NodeCIDR':
      return bySource(firstOfFamily(node.podCIDRs, family));
    case 'BridgeInterface':
      return { local: `-i ${d.bridge}`, notLocal: `! -i ${d.bridge}` };
    case 'InterfaceNamePrefix':
      return { local: `-i ${d.prefix}+`, notLocal: `! -i ${d.prefix}+` };
  }
}

const NO_NFACCT: ReadonlySet<string> = new Set();

export function renderContext(
  config: IptablesConfig,
  family: IPFamily,
  node: LocalNode,
  endpointCount: number,
  nfacct: ReadonlySet<string> = NO_NFACCT,
): RenderContext {
  return {
    family,
    config,
    detector: detectorFor(config, family, node),
    mark: masqueradeMark(config),
    nodeIPs: node.addresses.filter((ip) => ipFamilyOf(ip) === family),
    terse: endpointCount > config.largeClusterEndpoints,
    nfacct,
  };
}

/** Whether per-service chains render identically under both contexts (else a partial sync must go full). */
export function sameServiceRendering(a: RenderContext, b: RenderContext): boolean {
  return (
    a.config === b.config &&
    a.family === b.family &&
    a.terse === b.terse &&
    a.nfacct === b.nfacct &&
    a.detector?.local === b.detector?.local &&
    a.nodeIPs.join() === b.nodeIPs.join()
  );
}

/** Whether `ip` is one of the node's addresses inside any of `cidrs`. */
export function nodeIPIn(ctx: RenderContext, cidrs: readonly string[]): boolean {
  return ctx.nodeIPs.some((ip) => cidrs.some((cidr) => cidrContains(cidr, ip)));
}
