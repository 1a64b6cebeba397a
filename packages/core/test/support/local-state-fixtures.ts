/**
 * Builders of node-local states for the tests of consumers of `NodeLocalState` (sync loop, service
 * health servers): just enough structure, with readable defaults, overridable field by field.
 */
import type { IPFamily } from '../../src/model/types.js';
import { serviceKey, servicePortKey } from '../../src/model/types.js';
import type {
  FamilyEndpoints,
  LocalEndpoint,
  LocalService,
  LocalServicePort,
  NodeLocalState,
} from '../../src/nodeview/types.js';

export function aLocalEndpoint(ip: string, isLocal: boolean): LocalEndpoint {
  return { ip, port: 8080, ready: true, serving: true, terminating: false, isLocal };
}

/** Endpoints categorised as the node view would for `policyLocal` (both internal and external). */
export function familyEndpoints(endpoints: readonly LocalEndpoint[], policyLocal = false): FamilyEndpoints {
  const local = endpoints.filter((e) => e.isLocal);
  return {
    cluster: endpoints,
    local,
    internal: policyLocal ? local : endpoints,
    external: policyLocal ? local : endpoints,
    allReachable: endpoints,
    hasAnyEndpoints: endpoints.length > 0,
    serving: endpoints,
    externallyAccessible: policyLocal,
    externalPolicyLocal: policyLocal,
  };
}

export function aLocalPort(
  name: string,
  endpoints: Readonly<Partial<Record<IPFamily, FamilyEndpoints>>>,
  svc = serviceKey('default', 'svc'),
): LocalServicePort {
  return { key: servicePortKey(svc, name, 'TCP'), name, protocol: 'TCP', port: 80, nodePort: 0, endpoints };
}

export function aLocalService(name: string, overrides: Partial<LocalService> = {}): LocalService {
  const key = serviceKey('default', name);
  return {
    key,
    namespace: 'default',
    name,
    type: 'ClusterIP',
    families: { IPv4: { clusterIP: '198.19.0.1', externalIPs: [], loadBalancerIPs: [], loadBalancerSourceRanges: [] } },
    sessionAffinity: { type: 'None' },
    externalPolicyLocal: false,
    internalPolicyLocal: false,
    externallyAccessible: false,
    healthCheckNodePort: 0,
    localReadyEndpoints: 0,
    ports: [],
    ...overrides,
  };
}

export function aNodeLocalState(services: readonly LocalService[] = []): NodeLocalState {
  return {
    node: { name: 'node-a' as NodeLocalState['node']['name'], labels: {}, podCIDRs: [], addresses: [], eligible: true },
    services,
  };
}
