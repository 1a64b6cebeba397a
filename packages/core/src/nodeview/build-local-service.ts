/**
 * One Service as this node must program it: addresses per family, and per port and family the
 * endpoints already categorised for this node. All Service business logic meets here.
 */
import {
  IP_FAMILIES,
  serviceKey,
  servicePortKey,
  type EndpointSliceModel,
  type IPFamily,
  type ServiceModel,
} from '../model/types.js';
import { categorizeEndpoints, type EndpointCandidate } from './categorize-endpoints.js';
import { familyAddresses } from './family-addresses.js';
import { familyOf } from './ip.js';
import type { NodeContext } from './node-context.js';
import { endpointCandidates, indexSlicePorts, portSelectorKey, type SlicePortMatch } from './slice-endpoints.js';
import type { FamilyAddresses, FamilyEndpoints, LocalEndpoint, LocalService, LocalServicePort } from './types.js';

type PerFamily<T> = Partial<Record<IPFamily, T>>;

/** @returns undefined when kube-proxy would skip the Service (no ClusterIP, i.e. headless). */
export function buildLocalService(
  svc: ServiceModel,
  slices: Iterable<EndpointSliceModel>,
  node: NodeContext,
): LocalService | undefined {
  const families = familiesOf(svc, node);
  const present = IP_FAMILIES.filter((f) => families[f] !== undefined);
  if (present.length === 0) return undefined;

  const key = serviceKey(svc.namespace, svc.name);
  const hasNodePorts = svc.type === 'NodePort' || svc.type === 'LoadBalancer';
  const externallyAccessible =
    (hasNodePorts && svc.ports.some((p) => p.nodePort > 0)) ||
    present.some((f) => families[f]!.externalIPs.length > 0 || families[f]!.loadBalancerIPs.length > 0);
  const internalPolicyLocal = svc.internalTrafficPolicy === 'Local';
  const slicesByFamily = groupSlices(slices);
  const portsByFamily: PerFamily<ReadonlyMap<string, readonly SlicePortMatch[]>> = {};
  for (const family of present) portsByFamily[family] = indexSlicePorts(slicesByFamily[family] ?? []);
  const localReadyIPs = new Set<string>();

  const ports = svc.ports.map((spec): LocalServicePort => {
    const nodePort = hasNodePorts ? spec.nodePort : 0;
    const endpoints: PerFamily<FamilyEndpoints> = {};
    for (const family of present) {
      const matches = portsByFamily[family]!.get(portSelectorKey(spec)) ?? [];
      const candidates = endpointCandidates(matches, family, node.name);
      for (const { endpoint } of candidates) {
        if (endpoint.isLocal && endpoint.ready) localReadyIPs.add(endpoint.ip);
      }
      endpoints[family] = familyEndpoints(candidates, svc, nodePort, families[family]!, node);
    }
    return {
      key: servicePortKey(key, spec.name, spec.protocol),
      name: spec.name,
      protocol: spec.protocol,
      port: spec.port,
      nodePort,
      endpoints,
    };
  });

  return {
    key,
    namespace: svc.namespace,
    name: svc.name,
    type: svc.type,
    families,
    sessionAffinity: svc.sessionAffinity,
    externalPolicyLocal: svc.externalTrafficPolicy === 'Local' && externallyAccessible,
    internalPolicyLocal,
    externallyAccessible,
    healthCheckNodePort: svc.healthCheckNodePort,
    localReadyEndpoints: localReadyIPs.size,
    ports,
    ...(svc.preserveDestination === true ? { preserveDestination: true as const } : {}),
  };
}

/** One family per ClusterIP (`GetClusterIPByFamily`); anything that is not an IP ("None", "") is no family. */
function familiesOf(svc: ServiceModel, node: NodeContext): PerFamily<FamilyAddresses> {
  const out: PerFamily<FamilyAddresses> = {};
  for (const ip of svc.clusterIPs) {
    if (ip === '' || ip === 'None') continue;
    const family = familyOf(ip);
    out[family] ??= familyAddresses(svc, family, ip, node.addresses);
  }
  return out;
}

/** Slices per address type, ordered by name so duplicate resolution never depends on arrival order. */
function groupSlices(slices: Iterable<EndpointSliceModel>): PerFamily<EndpointSliceModel[]> {
  const out: PerFamily<EndpointSliceModel[]> = {};
  for (const slice of slices) (out[slice.addressType] ??= []).push(slice);
  for (const list of Object.values(out)) {
    if (list.length > 1) list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  return out;
}

function familyEndpoints(
  candidates: readonly EndpointCandidate[],
  svc: ServiceModel,
  nodePort: number,
  addresses: FamilyAddresses,
  node: NodeContext,
): FamilyEndpoints {
  // Upstream judges accessibility per service port and per single-family proxier.
  const externallyAccessible = nodePort > 0 || addresses.externalIPs.length > 0 || addresses.loadBalancerIPs.length > 0;
  const internalPolicyLocal = svc.internalTrafficPolicy === 'Local';
  const externalPolicyLocal = svc.externalTrafficPolicy === 'Local' && externallyAccessible;
  const sets = categorizeEndpoints(
    candidates,
    { internalPolicyLocal, externalPolicyLocal, externallyAccessible },
    node.name,
    node.zone,
  );
  return {
    cluster: sets.cluster,
    local: sets.local,
    internal: internalPolicyLocal ? sets.local : sets.cluster,
    external: externalPolicyLocal ? sets.local : sets.cluster,
    allReachable: sets.allReachable,
    hasAnyEndpoints: sets.hasAnyEndpoints,
    serving: servingOf(candidates),
    externallyAccessible,
    externalPolicyLocal,
  };
}

function servingOf(candidates: readonly EndpointCandidate[]): LocalEndpoint[] {
  const out: LocalEndpoint[] = [];
  for (const { endpoint } of candidates) if (endpoint.serving) out.push(endpoint);
  return out;
}
