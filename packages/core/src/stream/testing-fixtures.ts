/**
 * States for stream tests and measurements: a small one with every field populated, and synthetic
 * ones shaped like PERFORMANCE.md's `s10k` (10% NodePort, 5% ClientIP affinity, 5%
 * externalTrafficPolicy Local, 2 ports on 10%). Addresses follow the lab plan.
 */
import type { GlobalSnapshot } from '../model/global-model.js';
import {
  serviceKey,
  servicePortKey,
  type IPFamily,
  type NodeName,
  type Protocol,
  type ServiceModel,
} from '../model/types.js';
import type {
  FamilyEndpoints,
  LocalEndpoint,
  LocalNode,
  LocalService,
  LocalServicePort,
  NodeLocalState,
} from '../nodeview/types.js';

const THIS_NODE = 'node-a' as NodeName;

export const richNode: LocalNode = {
  name: THIS_NODE,
  labels: { 'topology.kubernetes.io/zone': 'zone-a', 'kubernetes.io/hostname': 'node-a' },
  zone: 'zone-a',
  podCIDRs: ['198.18.1.0/24', '2001:db8:1::/64'],
  addresses: ['198.18.255.1', '2001:db8:ff::1'],
  eligible: true,
  serviceCIDRs: ['198.19.0.0/16', '2001:db8:5e::/64'],
};

/** Endpoints of an externally accessible port (a LoadBalancer's, a NodePort's) unless told otherwise. */
function familyEndpoints(eps: readonly LocalEndpoint[], local: boolean, externallyAccessible = true): FamilyEndpoints {
  const ready = eps.filter((e) => e.ready);
  const mine = ready.filter((e) => e.isLocal);
  return {
    cluster: ready,
    local: mine,
    internal: ready,
    external: local ? mine : ready,
    allReachable: ready,
    hasAnyEndpoints: eps.some((e) => e.ready || e.serving),
    serving: eps.filter((e) => e.serving),
    externallyAccessible,
    externalPolicyLocal: local && externallyAccessible,
  };
}

/** Dual-stack LoadBalancer with affinity, policies, every endpoint flavour and every list non-empty. */
export function aRichLocalState(): NodeLocalState {
  const key = serviceKey('shop', 'front');
  const v4: LocalEndpoint[] = [
    {
      ip: '198.18.1.10',
      port: 8443,
      ready: true,
      serving: true,
      terminating: false,
      isLocal: true,
      nodeName: 'node-a',
      zone: 'zone-a',
    },
    {
      ip: '198.18.2.10',
      port: 8443,
      ready: true,
      serving: true,
      terminating: false,
      isLocal: false,
      nodeName: 'node-b',
      zone: 'zone-b',
    },
    { ip: '198.18.3.10', port: 8443, ready: false, serving: true, terminating: true, isLocal: false },
  ];
  const v6: LocalEndpoint[] = [
    {
      ip: '2001:db8:1::10',
      port: 8443,
      ready: true,
      serving: true,
      terminating: false,
      isLocal: true,
      nodeName: 'node-a',
    },
    {
      ip: '2001:db8:2::10',
      port: 8443,
      ready: false,
      serving: false,
      terminating: false,
      isLocal: false,
      zone: 'zone-b',
    },
  ];
  const https: LocalServicePort = {
    key: servicePortKey(key, 'https', 'TCP'),
    name: 'https',
    protocol: 'TCP',
    port: 443,
    nodePort: 30443,
    endpoints: { IPv4: familyEndpoints(v4, true), IPv6: { ...familyEndpoints(v6, true), local: [v6[0]!] } },
  };
  const dns: LocalServicePort = {
    key: servicePortKey(key, 'dns', 'UDP'),
    name: 'dns',
    protocol: 'UDP',
    port: 53,
    nodePort: 0,
    endpoints: {
      IPv4: {
        cluster: [],
        local: [],
        internal: [],
        external: [],
        allReachable: [],
        hasAnyEndpoints: false,
        serving: [],
        // The Service's LB IPs make every port of the family reachable from outside.
        externallyAccessible: true,
        externalPolicyLocal: true,
      },
    },
  };
  const front: LocalService = {
    key,
    namespace: 'shop',
    name: 'front',
    type: 'LoadBalancer',
    families: {
      IPv4: {
        clusterIP: '198.19.0.10',
        externalIPs: ['203.0.113.5'],
        loadBalancerIPs: ['203.0.113.10', '203.0.113.11'],
        loadBalancerSourceRanges: ['203.0.113.0/24'],
      },
      IPv6: {
        clusterIP: '2001:db8:19::10',
        externalIPs: [],
        loadBalancerIPs: ['2001:db8:ff::10'],
        loadBalancerSourceRanges: ['2001:db8::/32'],
      },
    },
    sessionAffinity: { type: 'ClientIP', timeoutSeconds: 10800 },
    externalPolicyLocal: true,
    internalPolicyLocal: true,
    externallyAccessible: true,
    healthCheckNodePort: 32000,
    localReadyEndpoints: 2,
    ports: [https, dns],
    preserveDestination: true,
  };
  const plain: LocalService = {
    key: serviceKey('default', 'ünïcode-😀'),
    namespace: 'default',
    name: 'ünïcode-😀',
    type: 'ClusterIP',
    families: {
      IPv6: { clusterIP: '2001:db8:19::1', externalIPs: [], loadBalancerIPs: [], loadBalancerSourceRanges: [] },
    },
    sessionAffinity: { type: 'ClientIP', timeoutSeconds: 0 },
    externalPolicyLocal: false,
    internalPolicyLocal: false,
    externallyAccessible: false,
    healthCheckNodePort: 0,
    localReadyEndpoints: 0,
    ports: [],
  };
  return { node: richNode, services: [plain, front] };
}

export interface SyntheticShape {
  readonly services: number;
  readonly endpointsPerService: number;
  /** Nodes the endpoints are spread over (default 100); endpoints on `node-a` are local. */
  readonly nodes?: number;
}

const v4 = (n: number, base: number) => `198.${base}.${(n >> 8) & 255}.${n & 255}`;

/** A node-local state shaped like `s10k`; endpoint objects are shared between lists, as the node viewer does. */
export function syntheticLocalState(shape: SyntheticShape): NodeLocalState {
  const services: LocalService[] = [];
  for (let i = 0; i < shape.services; i++) services.push(syntheticLocalService(i, shape, 0));
  services.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { node: richNode, services };
}

/** Service number `i` of a synthetic state; a different `generation` changes its endpoints' ports. */
export function syntheticLocalService(i: number, shape: SyntheticShape, generation: number): LocalService {
  const nodes = shape.nodes ?? 100;
  const key = serviceKey(`ns-${i % 50}`, `svc-${i}`);
  const nodePort = i % 10 === 0;
  const etpLocal = i % 20 === 1;
  const protocols: Protocol[] = i % 10 === 2 ? ['TCP', 'UDP'] : ['TCP'];
  const eps: LocalEndpoint[] = [];
  for (let e = 0; e < shape.endpointsPerService; e++) {
    const n = i * shape.endpointsPerService + e;
    const node = `node-${n % nodes === 0 ? 'a' : n % nodes}`;
    eps.push({
      ip: v4(n, 18),
      port: 8080 + generation,
      ready: true,
      serving: true,
      terminating: false,
      isLocal: node === 'node-a',
      nodeName: node,
      zone: `zone-${n % 3}`,
    });
  }
  const ports: LocalServicePort[] = protocols.map((protocol, p) => ({
    key: servicePortKey(key, protocols.length > 1 ? `p${p}` : '', protocol),
    name: protocols.length > 1 ? `p${p}` : '',
    protocol,
    port: 80 + p,
    nodePort: nodePort ? 30000 + (i % 2000) : 0,
    endpoints: { IPv4: familyEndpoints(eps, etpLocal, nodePort) },
  }));
  return {
    key,
    namespace: `ns-${i % 50}`,
    name: `svc-${i}`,
    type: nodePort ? 'NodePort' : 'ClusterIP',
    families: { IPv4: { clusterIP: v4(i, 19), externalIPs: [], loadBalancerIPs: [], loadBalancerSourceRanges: [] } },
    sessionAffinity: i % 20 === 3 ? { type: 'ClientIP', timeoutSeconds: 10800 } : { type: 'None' },
    externalPolicyLocal: etpLocal && nodePort,
    internalPolicyLocal: false,
    externallyAccessible: nodePort,
    healthCheckNodePort: 0,
    localReadyEndpoints: eps.filter((e) => e.isLocal).length,
    ports,
  };
}

/** `state` with service `index` replaced by a new object with different endpoint ports. */
export function withOneServiceChanged(
  state: NodeLocalState,
  index: number,
  shape: SyntheticShape,
  generation: number,
): NodeLocalState {
  const services = state.services.slice();
  const old = services[index]!;
  const i = Number(old.name.slice('svc-'.length));
  services[index] = syntheticLocalService(i, shape, generation);
  return { node: state.node, services };
}

/** A global snapshot with every field populated (IPv6, dual-stack, affinity, hints, named ports). */
export function aRichGlobalSnapshot(): GlobalSnapshot {
  const front: ServiceModel = {
    namespace: 'shop',
    name: 'front',
    type: 'LoadBalancer',
    clusterIPs: ['2001:db8:19::10', '198.19.0.10'],
    externalIPs: ['203.0.113.5'],
    loadBalancerIPs: ['2001:db8:ff::10', '203.0.113.10'],
    loadBalancerSourceRanges: ['203.0.113.0/24'],
    ports: [
      { name: 'https', protocol: 'TCP', port: 443, nodePort: 30443, targetPort: 'https' },
      { name: 'dns', protocol: 'UDP', port: 53, nodePort: 0, targetPort: 5353 },
      { name: 'sctp', protocol: 'SCTP', port: 9, nodePort: 0, targetPort: 0 },
    ],
    sessionAffinity: { type: 'ClientIP', timeoutSeconds: 60 },
    externalTrafficPolicy: 'Local',
    internalTrafficPolicy: 'Local',
    healthCheckNodePort: 32000,
    trafficDistribution: 'PreferClose',
    preserveDestination: true,
  };
  const plain: ServiceModel = {
    namespace: '',
    name: 'plain',
    type: 'ClusterIP',
    clusterIPs: [],
    externalIPs: [],
    loadBalancerIPs: [],
    loadBalancerSourceRanges: [],
    ports: [],
    sessionAffinity: { type: 'None' },
    externalTrafficPolicy: 'Cluster',
    internalTrafficPolicy: 'Cluster',
    healthCheckNodePort: 0,
  };
  const family: IPFamily = 'IPv6';
  return {
    revision: 42,
    services: [front, plain],
    endpointSlices: [
      {
        namespace: 'shop',
        name: 'front-v6',
        serviceName: 'front',
        addressType: family,
        ports: [
          { name: 'https', protocol: 'TCP', port: 8443 },
          { name: '', protocol: 'UDP', port: 5353 },
        ],
        endpoints: [
          {
            address: '2001:db8:1::10',
            ready: true,
            serving: true,
            terminating: false,
            nodeName: 'node-a',
            zone: 'zone-a',
            zoneHints: ['zone-a'],
            nodeHints: ['node-a'],
          },
          { address: '2001:db8:2::10', ready: false, serving: true, terminating: true, zoneHints: [] },
          { address: '2001:db8:3::10', ready: false, serving: false, terminating: false },
        ],
      },
      { namespace: 'shop', name: 'front-v4', serviceName: 'front', addressType: 'IPv4', ports: [], endpoints: [] },
    ],
    nodes: [
      {
        name: 'node-a',
        labels: { 'topology.kubernetes.io/zone': 'zone-a', 'kubernetes.io/hostname': 'node-a' },
        podCIDRs: ['198.18.1.0/24', '2001:db8:1::/64'],
        addresses: ['198.18.255.1', '2001:db8:ff::1'],
        eligible: true,
      },
      { name: 'node-b', labels: {}, podCIDRs: [], addresses: [], eligible: false },
    ],
    serviceCIDRs: [{ name: 'kubernetes', cidrs: ['198.19.0.0/16', '2001:db8:5e::/64'] }],
  };
}
