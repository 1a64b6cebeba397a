/**
 * kube-proxy's `CategorizeEndpoints` (`pkg/proxy/topology.go`): which endpoints of one service
 * port, in one family, this node sends Cluster-policy and Local-policy traffic to. Pure: the same
 * inputs always give the same, sorted, outputs.
 */
import { endpointString } from './ip.js';
import type { LocalEndpoint } from './types.js';

/** An endpoint plus the topology hints that decide it; hints never leave this module. */
export interface EndpointCandidate {
  readonly endpoint: LocalEndpoint;
  /** Zones the EndpointSlice controller hinted this endpoint for; undefined or empty = no hint. */
  readonly zoneHints?: readonly string[];
  /** Nodes hinted (`trafficDistribution: PreferSameNode`); undefined or empty = no hint. */
  readonly nodeHints?: readonly string[];
}

/** The per-service-port facts `CategorizeEndpoints` reads from upstream's `ServicePort`. */
export interface EndpointPolicy {
  readonly internalPolicyLocal: boolean;
  /** externalTrafficPolicy is Local. Only matters when the port is externally accessible. */
  readonly externalPolicyLocal: boolean;
  /** The port has a NodePort, or its family has an external or load-balancer IP. */
  readonly externallyAccessible: boolean;
}

export interface CategorizedEndpoints {
  /** Empty when the port never uses Cluster policy. */
  readonly cluster: readonly LocalEndpoint[];
  /** Empty when the port never uses Local policy. */
  readonly local: readonly LocalEndpoint[];
  readonly allReachable: readonly LocalEndpoint[];
  readonly hasAnyEndpoints: boolean;
}

type TopologyMode = 'none' | 'PreferSameNode' | 'PreferSameZone';

const NOTHING: CategorizedEndpoints = { cluster: [], local: [], allReachable: [], hasAnyEndpoints: false };

/** @param candidates sorted by `ip:port` (output lists keep that order). */
export function categorizeEndpoints(
  candidates: readonly EndpointCandidate[],
  policy: EndpointPolicy,
  nodeName: string,
  nodeZone: string | undefined,
): CategorizedEndpoints {
  if (candidates.length === 0) return NOTHING;
  // Cluster endpoints are needed even under externalTrafficPolicy Local: traffic from local pods
  // and from the host short-circuits to them.
  const usesCluster = !policy.internalPolicyLocal || policy.externallyAccessible;
  const usesLocal = policy.internalPolicyLocal || (policy.externalPolicyLocal && policy.externallyAccessible);

  let mode: TopologyMode = 'none';
  let cluster: readonly LocalEndpoint[] = [];
  let hasAnyEndpoints = false;
  if (usesCluster) {
    mode = topologyModeFromHints(candidates, nodeName, nodeZone);
    cluster = pick(candidates, (c) => c.endpoint.ready && availableForTopology(c, mode, nodeName, nodeZone));
    // Topology only ever narrows to a non-empty ready set (see topologyModeFromHints), so an empty
    // result means nothing is ready anywhere: fall back to serving+terminating endpoints.
    if (cluster.length === 0) {
      cluster = pick(candidates, (c) => c.endpoint.serving && c.endpoint.terminating);
    }
    hasAnyEndpoints = cluster.length > 0;
  }
  if (!usesLocal) return { cluster, local: [], allReachable: cluster, hasAnyEndpoints };

  let hasLocalReady = false;
  let hasLocalServingTerminating = false;
  for (const { endpoint: ep } of candidates) {
    if (ep.ready) {
      hasAnyEndpoints = true;
      hasLocalReady ||= ep.isLocal;
    } else if (ep.serving && ep.terminating) {
      hasAnyEndpoints = true;
      hasLocalServingTerminating ||= ep.isLocal;
    }
  }
  // Decided independently of the cluster set: local terminating endpoints are used whenever this
  // node has no local ready one, even if ready endpoints exist elsewhere.
  const usesTerminating = !hasLocalReady && hasLocalServingTerminating;
  const local = hasLocalReady
    ? pick(candidates, (c) => c.endpoint.isLocal && c.endpoint.ready)
    : usesTerminating
      ? pick(candidates, (c) => c.endpoint.isLocal && c.endpoint.serving && c.endpoint.terminating)
      : [];

  if (!usesCluster) return { cluster, local, allReachable: local, hasAnyEndpoints };
  // Without topology, cluster holds every ready endpoint; with ready-only locals it is a superset.
  if (mode === 'none' && !usesTerminating) return { cluster, local, allReachable: cluster, hasAnyEndpoints };
  return { cluster, local, allReachable: union(cluster, local), hasAnyEndpoints };
}

/**
 * Same node when every ready endpoint has node hints and one names this node (the
 * PreferSameTrafficDistribution gate is treated as on); else same zone, on the same terms;
 * else no filtering. Unready endpoints neither need nor provide hints.
 */
function topologyModeFromHints(
  candidates: readonly EndpointCandidate[],
  nodeName: string,
  zone: string | undefined,
): TopologyMode {
  let hasReady = false;
  let allHaveNodeHints = true;
  let hasHintForNode = false;
  let allHaveZoneHints = true;
  let hasHintForZone = false;
  for (const c of candidates) {
    if (!c.endpoint.ready) continue;
    hasReady = true;
    if (!c.nodeHints?.length) allHaveNodeHints = false;
    else if (c.nodeHints.includes(nodeName)) hasHintForNode = true;
    if (!c.zoneHints?.length) allHaveZoneHints = false;
    else if (zone !== undefined && c.zoneHints.includes(zone)) hasHintForZone = true;
  }
  if (!hasReady) return 'none';
  if (allHaveNodeHints && hasHintForNode) return 'PreferSameNode';
  if (allHaveZoneHints && hasHintForZone) return 'PreferSameZone';
  return 'none';
}

function availableForTopology(
  c: EndpointCandidate,
  mode: TopologyMode,
  nodeName: string,
  zone: string | undefined,
): boolean {
  switch (mode) {
    case 'none':
      return true;
    case 'PreferSameNode':
      return c.nodeHints?.includes(nodeName) ?? false;
    case 'PreferSameZone':
      return zone !== undefined && (c.zoneHints?.includes(zone) ?? false);
  }
}

function pick(candidates: readonly EndpointCandidate[], keep: (c: EndpointCandidate) => boolean): LocalEndpoint[] {
  const out: LocalEndpoint[] = [];
  for (const c of candidates) if (keep(c)) out.push(c.endpoint);
  return out;
}

/** Merge two `ip:port`-sorted lists into one sorted list without duplicates. */
function union(a: readonly LocalEndpoint[], b: readonly LocalEndpoint[]): LocalEndpoint[] {
  if (b.length === 0) return [...a];
  if (a.length === 0) return [...b];
  const byKey = new Map<string, LocalEndpoint>();
  for (const ep of a) byKey.set(endpointString(ep.ip, ep.port), ep);
  for (const ep of b) byKey.set(endpointString(ep.ip, ep.port), ep);
  return [...byKey.entries()].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([, ep]) => ep);
}
