/**
 * Node-local states for backend tests (from plain Service fixtures), built the real way: Services and EndpointSlices go through core's
 * node view (`computeNodeLocalState`), so fixtures carry exactly the categorisation core does.
 * Addresses follow the lab plan: pods 198.18.0.0/16 (this node's 198.18.1.0/24, the other's
 * 198.18.2.0/24), Services 198.19.0.0/16, nodes 198.18.255.0/24, external/LB 203.0.113.0/24,
 * IPv6 under 2001:db8::/32.
 */
import type { ModelReader } from '../model/reader.js';
import {
  serviceKey,
  type EndpointModel,
  type EndpointSliceModel,
  type IPFamily,
  type NodeModel,
  type NodeName,
  type Protocol,
  type ServiceKey,
  type ServiceModel,
  type ServiceType,
} from '../model/types.js';
import { computeNodeLocalState } from './node-viewer.js';
import { THIS_NODE } from './testing-fixtures.js';
import type { SyncRequest } from '../sync/backend.js';
import type { NodeLocalState } from './types.js';

export const NODE_IPV4 = '198.18.255.1';
export const NODE_IPV6 = '2001:db8:ff::1';

export interface PortFixture {
  readonly name?: string;
  readonly protocol?: Protocol;
  readonly port: number;
  readonly nodePort?: number;
  /** Endpoint port; default 8080. */
  readonly targetPort?: number;
}

export interface EndpointFixture {
  readonly ip: string;
  /** Default THIS_NODE. */
  readonly node?: string;
  readonly ready?: boolean;
  readonly serving?: boolean;
  readonly terminating?: boolean;
}

export interface ServiceFixture {
  readonly name: string;
  readonly namespace?: string;
  readonly type?: ServiceType;
  readonly clusterIPs: readonly string[];
  readonly externalIPs?: readonly string[];
  readonly loadBalancerIPs?: readonly string[];
  readonly sourceRanges?: readonly string[];
  /** Default one TCP port 80 -> 8080. */
  readonly ports?: readonly PortFixture[];
  /** ClientIP affinity timeout, seconds. */
  readonly affinity?: number;
  readonly externalLocal?: boolean;
  readonly internalLocal?: boolean;
  /** The `preserve-destination: "true"` annotation. */
  readonly preserveDestination?: boolean;
  readonly endpoints?: readonly EndpointFixture[];
}

export interface NodeFixture {
  readonly addresses?: readonly string[];
  readonly podCIDRs?: readonly string[];
}

const familyOf = (ip: string): IPFamily => (ip.includes(':') ? 'IPv6' : 'IPv4');
const sortedUnique = (list: readonly string[]): string[] => [...new Set(list)].sort();

function serviceModel(f: ServiceFixture): ServiceModel {
  const ports = f.ports ?? [{ port: 80 }];
  const hasNodePort = ports.some((p) => (p.nodePort ?? 0) > 0);
  return {
    namespace: f.namespace ?? 'default',
    name: f.name,
    type: f.type ?? ((f.loadBalancerIPs?.length ?? 0) > 0 ? 'LoadBalancer' : hasNodePort ? 'NodePort' : 'ClusterIP'),
    clusterIPs: f.clusterIPs,
    externalIPs: sortedUnique(f.externalIPs ?? []),
    loadBalancerIPs: sortedUnique(f.loadBalancerIPs ?? []),
    loadBalancerSourceRanges: sortedUnique(f.sourceRanges ?? []),
    ports: ports.map((p) => ({
      name: p.name ?? '',
      protocol: p.protocol ?? 'TCP',
      port: p.port,
      nodePort: p.nodePort ?? 0,
      targetPort: p.targetPort ?? 8080,
    })),
    sessionAffinity: f.affinity === undefined ? { type: 'None' } : { type: 'ClientIP', timeoutSeconds: f.affinity },
    externalTrafficPolicy: f.externalLocal === true ? 'Local' : 'Cluster',
    internalTrafficPolicy: f.internalLocal === true ? 'Local' : 'Cluster',
    healthCheckNodePort: 0,
    ...(f.preserveDestination === true ? { preserveDestination: true as const } : {}),
  };
}

function slices(f: ServiceFixture): EndpointSliceModel[] {
  const ports = f.ports ?? [{ port: 80 }];
  const out: EndpointSliceModel[] = [];
  for (const family of ['IPv4', 'IPv6'] as const) {
    const endpoints: EndpointModel[] = (f.endpoints ?? [])
      .filter((ep) => familyOf(ep.ip) === family)
      .map((ep) => ({
        address: ep.ip,
        ready: ep.ready ?? true,
        serving: ep.serving ?? ep.ready ?? true,
        terminating: ep.terminating ?? false,
        nodeName: ep.node ?? THIS_NODE,
      }));
    if (endpoints.length === 0) continue;
    out.push({
      namespace: f.namespace ?? 'default',
      name: `${f.name}-${family.toLowerCase()}`,
      serviceName: f.name,
      addressType: family,
      ports: ports.map((p) => ({ name: p.name ?? '', protocol: p.protocol ?? 'TCP', port: p.targetPort ?? 8080 })),
      endpoints,
    });
  }
  return out;
}

/** A ModelReader over fixtures (what core's node view reads). */
export function fixtureModel(services: readonly ServiceFixture[], node: NodeFixture = {}): ModelReader {
  const models = new Map<ServiceKey, ServiceModel>();
  const sliceMap = new Map<ServiceKey, EndpointSliceModel[]>();
  for (const f of services) {
    const key = serviceKey(f.namespace ?? 'default', f.name);
    models.set(key, serviceModel(f));
    sliceMap.set(key, slices(f));
  }
  const nodeModel: NodeModel = {
    name: THIS_NODE,
    labels: {},
    podCIDRs: node.podCIDRs ?? ['198.18.1.0/24', '2001:db8:1::/64'],
    addresses: node.addresses ?? [NODE_IPV4, NODE_IPV6],
    eligible: true,
  };
  return {
    revision: 1,
    service: (key) => models.get(key),
    slicesOf: (key) => sliceMap.get(key) ?? [],
    node: (name) => (name === THIS_NODE ? nodeModel : undefined),
    serviceKeys: () => models.keys(),
  };
}

/** The node-local state of THIS_NODE for these Services. */
export function nodeState(services: readonly ServiceFixture[], node: NodeFixture = {}): NodeLocalState {
  return computeNodeLocalState(fixtureModel(services, node), THIS_NODE as NodeName);
}

/** A full sync request of `state` (what core's sync loop hands a backend). */
export function fullSyncRequest(state: NodeLocalState, revision = 1): SyncRequest {
  return { state, changes: { triggerTimes: new Map(), nodeChanged: false }, full: true, revision };
}

/** A partial sync request: the Services named `changed` (namespace `default`) changed. */
export function partialSyncRequest(state: NodeLocalState, changed: readonly string[], revision: number): SyncRequest {
  const updatedServices = new Set(changed.map((name) => serviceKey('default', name))) as ReadonlySet<ServiceKey>;
  return { state, changes: { updatedServices, triggerTimes: new Map(), nodeChanged: false }, full: false, revision };
}
