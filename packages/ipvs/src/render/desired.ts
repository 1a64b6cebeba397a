import type {
  FamilyEndpoints,
  IPFamily,
  LocalEndpoint,
  LocalService,
  LocalServicePort,
  NodeLocalState,
} from '@kpng/core';
import { type RealServer, type VirtualServer, type VirtualServerKey, virtualServerKey } from '../ipvs/types.js';
import type { IpvsConfig } from './options.js';

/** Why a virtual server exists: which traffic policy its real servers follow, for filtering and masquerade. */
export type Exposure = 'cluster-ip' | 'node-port' | 'external';

export interface DesiredVirtualServer {
  readonly vs: VirtualServer;
  readonly exposure: Exposure;
  readonly reals: readonly RealServer[];
  /** No endpoint anywhere: reject new connections. */
  readonly reject: boolean;
  /** Endpoints exist, none for this traffic (ETP/ITP Local on a node without one): drop. */
  readonly drop: boolean;
  /** Masquerade whatever the source (NodePort, external and LB IPs with externalTrafficPolicy Cluster). */
  readonly masqueradeAlways: boolean;
}

export interface DesiredState {
  readonly virtualServers: ReadonlyMap<VirtualServerKey, DesiredVirtualServer>;
  /** Addresses bound to the dummy link, per family (ClusterIPs, external and LB IPs). */
  readonly addresses: Readonly<Record<IPFamily, readonly string[]>>;
}

/**
 * From core's node-local state to IPVS objects: one virtual server per ClusterIP, external IP and LB
 * IP and port, one per node address for each NodePort. Real servers are core's already-categorised
 * lists: `internal` for the ClusterIP, `external` for the rest. No policy is re-derived here.
 */
export function renderDesired(state: NodeLocalState, config: IpvsConfig): DesiredState {
  const virtualServers = new Map<VirtualServerKey, DesiredVirtualServer>();
  const addresses: Record<IPFamily, Set<string>> = { IPv4: new Set(), IPv6: new Set() };
  for (const service of state.services) {
    for (const family of ['IPv4', 'IPv6'] as const) {
      const fa = service.families[family];
      if (fa === undefined) continue;
      const nodeAddresses = nodePortAddresses(state, config, family);
      for (const port of service.ports) {
        const endpoints = port.endpoints[family];
        if (endpoints === undefined || port.protocol === 'SCTP') continue;
        const add = (address: string, servicePort: number, exposure: Exposure): void => {
          const d = desired(service, port, family, endpoints, address, servicePort, exposure, config);
          virtualServers.set(virtualServerKey(d.vs), d);
        };
        add(fa.clusterIP, port.port, 'cluster-ip');
        addresses[family].add(fa.clusterIP);
        for (const ip of [...fa.externalIPs, ...fa.loadBalancerIPs]) {
          add(ip, port.port, 'external');
          addresses[family].add(ip);
        }
        if (port.nodePort > 0) for (const ip of nodeAddresses) add(ip, port.nodePort, 'node-port');
      }
    }
  }
  return { virtualServers, addresses: { IPv4: [...addresses.IPv4].sort(), IPv6: [...addresses.IPv6].sort() } };
}

function desired(
  service: LocalService,
  port: LocalServicePort,
  family: IPFamily,
  endpoints: FamilyEndpoints,
  address: string,
  servicePort: number,
  exposure: Exposure,
  config: IpvsConfig,
): DesiredVirtualServer {
  const list = exposure === 'cluster-ip' ? endpoints.internal : endpoints.external;
  const externalPolicyCluster = !service.externalPolicyLocal;
  return {
    vs: {
      family,
      protocol: port.protocol,
      address,
      port: servicePort,
      scheduler: config.scheduler,
      persistentSeconds: service.sessionAffinity.type === 'ClientIP' ? service.sessionAffinity.timeoutSeconds : 0,
    },
    exposure,
    reals: realServers(list),
    reject: !endpoints.hasAnyEndpoints,
    drop: endpoints.hasAnyEndpoints && list.length === 0,
    masqueradeAlways: config.masqueradeAll || (exposure !== 'cluster-ip' && externalPolicyCluster),
  };
}

function realServers(list: readonly LocalEndpoint[]): RealServer[] {
  const seen = new Map<string, RealServer>();
  for (const ep of list) seen.set(`${ep.ip}/${ep.port}`, { address: ep.ip, port: ep.port, weight: 1 });
  return [...seen.values()];
}

function nodePortAddresses(state: NodeLocalState, config: IpvsConfig, family: IPFamily): string[] {
  const all = config.nodePortAddresses.length > 0 ? config.nodePortAddresses : state.node.addresses;
  return all.filter((ip) => ip.includes(':') === (family === 'IPv6'));
}
