/**
 * Every name inside the table, from one module. We own the whole table, so nothing carries a
 * prefix. Fixed objects are named for what they hold; the shared selection and entry chains are
 * named from their parameters, so the name alone says what the chain does and equal parameters
 * always meet in the same chain.
 */

export type Proto = 'tcp' | 'udp' | 'sctp';
export const PROTOS: readonly Proto[] = ['tcp', 'udp', 'sctp'];

export const SET = {
  serviceIPs: 'service-ips',
  serviceNodePorts: 'service-nodeports',
  noEndpointServices: 'no-endpoint-services',
  noEndpointNodePorts: 'no-endpoint-nodeports',
  firewallIPs: 'firewall-ips',
  firewallAllow: 'firewall-allow',
  clusterIPs: 'cluster-ips',
  serviceCIDRs: 'service-cidrs',
  nodePortIPs: 'nodeport-ips',
  podCIDRs: 'pod-cidrs',
  hairpin: 'hairpin',
  affinity: 'affinity',
  affinityIPs: 'affinity-ips',
  affinityNodePorts: 'affinity-nodeports',
  canary: 'resync-canary',
} as const;

export function endpointsMap(proto: Proto): string {
  return `endpoints-${proto}`;
}

export const CHAIN = {
  filterPrerouting: 'filter-prerouting',
  filterInput: 'filter-input',
  filterForward: 'filter-forward',
  filterOutput: 'filter-output',
  filterOutputPostDnat: 'filter-output-post-dnat',
  natPrerouting: 'nat-prerouting',
  natOutput: 'nat-output',
  natPostrouting: 'nat-postrouting',
  services: 'services',
  serviceEndpointsCheck: 'service-endpoints-check',
  nodePortEndpointsCheck: 'nodeport-endpoints-check',
  firewallCheck: 'firewall-check',
  clusterIPsCheck: 'cluster-ips-check',
  markForMasquerade: 'mark-for-masquerade',
  masquerading: 'masquerading',
  reject: 'reject-chain',
  affinityRecord: 'affinity-record',
} as const;

/**
 * Endpoints of the list a short-circuit uses (externalTrafficPolicy Local, traffic from a local
 * pod or the host) sit at this slot offset under the same service address as the local list.
 */
export const SHORT_CIRCUIT_OFFSET = 65536;

/** How one endpoint list of one service address is chosen from. */
export interface Pick {
  readonly proto: Proto;
  /** Keyed by the masked destination (NodePorts), not the service address. */
  readonly nodePort: boolean;
  /** The list at SHORT_CIRCUIT_OFFSET. */
  readonly shortCircuit: boolean;
  /** Number of endpoints, >= 1. */
  readonly n: number;
}

function pickSuffix(p: Pick): string {
  return `${p.proto}${p.nodePort ? '-np' : ''}${p.shortCircuit ? '-sc' : ''}`;
}

export function pickChain(p: Pick): string {
  return `pick-${pickSuffix(p)}-${p.n}`;
}

/**
 * ClientIP affinity belongs to a service port, whichever of its addresses the client used
 * (semantics 3.7): each sticky port gets a number, unique in its family's table for the life of
 * the backend, that keys its `affinity` entries and names its chains.
 */
export type AffinityList = 'internal' | 'external' | 'cluster';

/** Looks the client up among one endpoint list of a sticky port, then falls through to its pick. */
export function affinityChain(port: number, list: AffinityList, nodePort: boolean): string {
  return `affinity-${port}-${list}${nodePort ? '-np' : ''}`;
}

/** Records (or refreshes) the endpoint a client of a sticky port was sent to, after DNAT. */
export function affinityRecordChain(port: number): string {
  return `affinity-${port}-record`;
}

/** Where a dispatch ends: a chain, or drop (endpoints exist, none usable by this traffic). */
export type Target = { readonly chain: string } | 'drop';

export function verdict(target: Target): string {
  return target === 'drop' ? 'drop' : `goto ${target.chain}`;
}

export function clusterEntryChain(pick: string): string {
  return `cluster-${pick}`;
}

export function externalEntryChain(pick: string): string {
  return `external-${pick}`;
}

export function localEntryChain(local: Target, shortCircuit: Target): string {
  const part = (t: Target): string => (t === 'drop' ? 'drop' : t.chain);
  return `local-${part(local)}.${part(shortCircuit)}`;
}

/** Chains whose names come from parameters (the apply layer sweeps these when unused). */
export function isDynamicChain(name: string): boolean {
  return /^(pick|cluster|external|local)-/.test(name) || /^affinity-\d/.test(name);
}
