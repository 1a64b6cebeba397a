import {
  nodePortAddressesFor,
  type FamilyEndpoints,
  type IPFamily,
  type LocalEndpoint,
  type LocalNode,
  type LocalService,
  type LocalServicePort,
  type NodeLocalState,
  type ServiceKey,
} from '@kpng/core';
import { type RealServer, type VirtualServer, type VirtualServerKey, virtualServerKey } from '../ipvs/types.js';
import type { IpvsConfig } from './options.js';
import { runSteps, runStepsYielding, type Steps, type TurnBudget } from '@kpng/kit';

const FAMILIES = ['IPv4', 'IPv6'] as const;

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
  /** LB IPs of a Service with `loadBalancerSourceRanges`: only these sources may connect (core's list). */
  readonly sourceRanges: readonly string[];
  /**
   * The Service's health-check node port (0: none): not rejected at Service addresses, as
   * upstream's `KUBE-IPVS-FILTER` returns for its `KUBE-HEALTH-CHECK-NODE-PORT` set.
   */
  readonly healthCheckNodePort: number;
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
  return runSteps(desiredSteps(state, config, undefined)).desired;
}

/** What one Service renders to: its virtual servers (in order) and the addresses they need on kube-ipvs0. */
export interface RenderedService {
  readonly virtualServers: readonly (readonly [VirtualServerKey, DesiredVirtualServer])[];
  readonly addresses: Readonly<Record<IPFamily, readonly string[]>>;
}

/** What the last render produced per Service: a partial sync re-renders only the Services that changed. */
export type RenderCache = ReadonlyMap<ServiceKey, RenderedService>;

/** The Services that changed since the render that produced `cache` (core's `updatedServices`). */
export interface RenderReuse {
  readonly cache: RenderCache;
  readonly updated: ReadonlySet<ServiceKey>;
}

export interface IncrementalRender {
  readonly desired: DesiredState;
  /** For the next render's reuse. */
  readonly cache: RenderCache;
  /** The virtual servers the changed Services had or have now; undefined when everything was rendered. */
  readonly touched: ReadonlySet<VirtualServerKey> | undefined;
}

/**
 * `renderDesired`, giving the event loop a turn whenever `budget` is spent; with `reuse`, Services
 * not in `reuse.updated` are taken from the cache (same state in, same result out: only the node
 * and the config, which invalidate the cache, and the Service itself go into its rendering).
 */
export function renderDesiredYielding(
  state: NodeLocalState,
  config: IpvsConfig,
  reuse: RenderReuse | undefined,
  budget: TurnBudget,
): Promise<IncrementalRender> {
  return runStepsYielding(desiredSteps(state, config, reuse), budget);
}

/** Renders Service by Service (one step each); later Services win a virtual server key, as before. */
function* desiredSteps(
  state: NodeLocalState,
  config: IpvsConfig,
  reuse: RenderReuse | undefined,
): Steps<IncrementalRender> {
  const virtualServers = new Map<VirtualServerKey, DesiredVirtualServer>();
  const nodePorts = nodePortAddressesOf(state.node);
  const addresses: Record<IPFamily, Set<string>> = { IPv4: new Set(), IPv6: new Set() };
  const cache = new Map<ServiceKey, RenderedService>();
  const touched = reuse === undefined ? undefined : new Set<VirtualServerKey>();
  const touch = (rendered: RenderedService | undefined): void => {
    for (const [key] of rendered?.virtualServers ?? []) touched?.add(key);
  };
  for (const service of state.services) {
    const changed = reuse === undefined || reuse.updated.has(service.key);
    let rendered = changed ? undefined : reuse.cache.get(service.key);
    if (rendered === undefined) {
      rendered = renderService(service, nodePorts, config);
      touch(reuse?.cache.get(service.key));
      touch(rendered);
    }
    cache.set(service.key, rendered);
    for (const [key, d] of rendered.virtualServers) virtualServers.set(key, d);
    for (const family of FAMILIES) for (const ip of rendered.addresses[family]) addresses[family].add(ip);
    yield;
  }
  // Services that disappeared: what they had goes.
  for (const key of reuse?.updated ?? []) if (!cache.has(key)) touch(reuse?.cache.get(key));
  const sorted = { IPv4: [...addresses.IPv4].sort(), IPv6: [...addresses.IPv6].sort() };
  return { desired: { virtualServers, addresses: sorted }, cache, touched };
}

function renderService(
  service: LocalService,
  nodePorts: Readonly<Record<IPFamily, readonly string[]>>,
  config: IpvsConfig,
): RenderedService {
  const virtualServers: [VirtualServerKey, DesiredVirtualServer][] = [];
  const addresses: Record<IPFamily, string[]> = { IPv4: [], IPv6: [] };
  for (const family of FAMILIES) {
    const fa = service.families[family];
    if (fa === undefined) continue;
    const nodeAddresses = nodePorts[family];
    for (const port of service.ports) {
      const endpoints = port.endpoints[family];
      if (endpoints === undefined) continue;
      const add = (address: string, servicePort: number, exposure: Exposure, ranges: readonly string[] = []): void => {
        const d = desired(service, port, family, endpoints, address, servicePort, exposure, config);
        virtualServers.push([virtualServerKey(d.vs), { ...d, sourceRanges: ranges }]);
      };
      add(fa.clusterIP, port.port, 'cluster-ip');
      addresses[family].push(fa.clusterIP);
      for (const ip of fa.externalIPs) {
        add(ip, port.port, 'external');
        addresses[family].push(ip);
      }
      // Source ranges apply to LB IPs only (not external IPs, not NodePorts), as upstream.
      for (const ip of fa.loadBalancerIPs) {
        add(ip, port.port, 'external', fa.loadBalancerSourceRanges);
        addresses[family].push(ip);
      }
      if (port.nodePort > 0) for (const ip of nodeAddresses) add(ip, port.nodePort, 'node-port');
    }
  }
  return { virtualServers, addresses };
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
): Omit<DesiredVirtualServer, 'sourceRanges'> {
  const list = exposure === 'cluster-ip' ? endpoints.internal : endpoints.external;
  // Core's decision for this port and family (only externally accessible ones have such virtual servers).
  const externalPolicyCluster = !endpoints.externalPolicyLocal;
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
    healthCheckNodePort: service.healthCheckNodePort,
  };
}

function realServers(list: readonly LocalEndpoint[]): RealServer[] {
  const seen = new Map<string, RealServer>();
  for (const ep of list) seen.set(`${ep.ip}/${ep.port}`, { address: ep.ip, port: ep.port, weight: 1 });
  return [...seen.values()];
}

/**
 * Which addresses get NodePort virtual servers: those core resolved from `nodePortAddresses` over
 * the host's interfaces (`LocalNode.nodePortAddresses`, read at each sync). The backend asks core
 * to list a family the setting matches wholly (`Backend.nodePorts.listEveryAddressExcept`): every
 * host address but those on kube-ipvs0, loopback and IPv6 link-local, as upstream's ipvs mode.
 * A state no sync stage resolved (`all` or unset: renders outside a program) falls back to the
 * Node's addresses of that family.
 */
export function nodePortAddressesOf(node: LocalNode): Record<IPFamily, readonly string[]> {
  const of = (family: IPFamily): readonly string[] => {
    const resolved = nodePortAddressesFor(node, family);
    return resolved !== 'all' ? resolved : node.addresses.filter((ip) => ip.includes(':') === (family === 'IPv6'));
  };
  return { IPv4: of('IPv4'), IPv6: of('IPv6') };
}
