/**
 * Render: from core's node-local state, the HNS load balancers this node needs, one per service
 * port and frontend (ClusterIP, NodePort, each external IP, each LB IP, and forwarded health-check
 * VIPs), with the flags upstream's winkernel proxier sets, and the remote endpoints they need.
 * Pure: no HNS calls. Endpoints are named by IP here; the planner resolves them to HNS IDs.
 *
 * Which endpoints a frontend uses comes from core (`internal` for the ClusterIP, `external` for
 * the rest, its local ones when core marks the Service `preserveDestination`, from upstream's
 * `preserve-destination` annotation); nothing here re-derives traffic policy.
 */
import {
  ipFamilyOf,
  type IPFamily,
  type LocalEndpoint,
  type LocalService,
  type LocalServicePort,
  type NodeLocalState,
  type ServiceKey,
} from '@kpng/core';
import { Distribution, LoadBalancerFlags, PortMappingFlags, PROTOCOL_NUMBERS } from '../hcn/schema.js';
import type { WinKernelConfig } from './config.js';
import { conjureMac, providerAddressOf, type NetworkInfo } from './network.js';

export type FrontendRole = 'ClusterIP' | 'NodePort' | 'ExternalIP' | 'LoadBalancerIP' | 'HealthCheck';

/** An endpoint of a load balancer: a pod (by IP) or a fixed HNS endpoint (the host's, for health checks). */
export type EndpointRef = { readonly ip: string; readonly local: boolean } | { readonly id: string };

export interface LoadBalancerIntent {
  /** HNS's uniqueness key: family, frontend (VIP, or the node for NodePorts), protocol, port. */
  readonly key: string;
  readonly service: ServiceKey;
  readonly role: FrontendRole;
  readonly family: IPFamily;
  /** Absent for NodePorts (the node's own addresses). */
  readonly vip?: string;
  readonly protocol: number;
  readonly internalPort: number;
  readonly externalPort: number;
  readonly flags: number;
  readonly portFlags: number;
  readonly distribution: number;
  readonly sourceVip?: string;
  readonly endpoints: readonly EndpointRef[];
}

/** A remote endpoint this node must hold in HNS (pods elsewhere; on overlay also each ClusterIP). */
export interface RemoteEndpointIntent {
  readonly ip: string;
  readonly mac: string;
  /** Overlay only: the node that hosts the address. */
  readonly providerAddress?: string;
}

export interface RenderContext {
  readonly config: WinKernelConfig;
  readonly network: NetworkInfo;
  /** This node's address per family (the provider address and the fallback source VIP on overlay). */
  readonly nodeIPs: Readonly<Partial<Record<IPFamily, string>>>;
  /** The host's HNS endpoint, when health-check VIPs are forwarded. */
  readonly gatewayEndpointId?: string;
  /** The host's MAC (overlay: the MAC of ClusterIP remote endpoints and of the source VIP endpoint). */
  readonly hostMac?: string;
}

export interface ServiceRender {
  readonly loadBalancers: LoadBalancerIntent[];
  readonly remoteEndpoints: RemoteEndpointIntent[];
  /** Endpoints left out because their port differs from the load balancer's single internal port. */
  readonly droppedEndpoints: number;
}

export const lbKey = (family: IPFamily, vip: string | undefined, protocol: number, port: number): string =>
  `${family}|${vip ?? 'node'}|${protocol}|${port}`;

/** The families the node programs: overlay networks are IPv4 only, as upstream. */
export function effectiveFamilies(ctx: RenderContext): IPFamily[] {
  return ctx.config.families.filter((f) => !ctx.network.overlay || f === 'IPv4');
}

export function renderService(svc: LocalService, ctx: RenderContext): ServiceRender {
  const out: ServiceRender = { loadBalancers: [], remoteEndpoints: [], droppedEndpoints: 0 };
  let dropped = 0;
  for (const family of effectiveFamilies(ctx)) {
    const addresses = svc.families[family];
    if (addresses === undefined) continue;
    for (const port of svc.ports) {
      const eps = port.endpoints[family];
      if (eps === undefined) continue;
      const r = renderPort(
        svc,
        port,
        family,
        addresses.clusterIP,
        addresses.externalIPs,
        addresses.loadBalancerIPs,
        eps,
        ctx,
      );
      out.loadBalancers.push(...r.loadBalancers);
      out.remoteEndpoints.push(...r.remoteEndpoints);
      dropped += r.droppedEndpoints;
    }
  }
  return { ...out, droppedEndpoints: dropped };
}

function renderPort(
  svc: LocalService,
  port: LocalServicePort,
  family: IPFamily,
  clusterIP: string,
  externalIPs: readonly string[],
  lbIPs: readonly string[],
  eps: NonNullable<LocalServicePort['endpoints'][IPFamily]>,
  ctx: RenderContext,
): ServiceRender {
  const protocol = PROTOCOL_NUMBERS[port.protocol];
  const preserveDIP = svc.preserveDestination === true;
  const localDSR = eps.externalPolicyLocal;
  const v6 = family === 'IPv6' ? LoadBalancerFlags.IPv6 : 0;
  const distribution = svc.sessionAffinity.type === 'ClientIP' ? Distribution.SourceIP : Distribution.None;
  // One internal port per HNS load balancer: the port of the first endpoint (upstream takes the
  // first endpoint's port too); endpoints that listen elsewhere would get traffic on the wrong port.
  const all = [...eps.allReachable].sort((a, b) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : a.port - b.port));
  const internalPort = all[0]?.port ?? 0;
  let dropped = 0;
  const usable = (list: readonly LocalEndpoint[]): LocalEndpoint[] => {
    const kept = list.filter((ep) => ep.port === internalPort);
    dropped = Math.max(dropped, list.length - kept.length);
    return kept;
  };
  const clusterEps = usable(eps.internal);
  const externalEps = usable(eps.external);
  // preserve-destination delivers to this node's pods only (upstream's hnsLocalEndpoints).
  const localEps = externalEps.filter((ep) => ep.isLocal);
  const sourceVip = sourceVipFor(all, family, ctx);
  const lbs: LoadBalancerIntent[] = [];
  const add = (
    role: FrontendRole,
    vip: string | undefined,
    externalPort: number,
    endpoints: readonly LocalEndpoint[],
    flags: number,
    portFlags: number,
  ) => {
    if (endpoints.length === 0) return; // upstream creates no load balancer without endpoints
    lbs.push({
      key: lbKey(family, vip, protocol, externalPort),
      service: svc.key,
      role,
      family,
      ...(vip === undefined ? {} : { vip }),
      protocol,
      internalPort,
      externalPort,
      flags: flags | v6,
      portFlags,
      distribution,
      ...(sourceVip === undefined ? {} : { sourceVip }),
      endpoints: endpoints.map((ep) => ({ ip: ep.ip, local: ep.isLocal })),
    });
  };
  add('ClusterIP', clusterIP, port.port, clusterEps, ctx.config.enableDSR ? LoadBalancerFlags.DSR : 0, 0);
  const externalDSR = localDSR ? LoadBalancerFlags.DSR : 0;
  if (port.nodePort > 0) {
    add(
      'NodePort',
      undefined,
      port.nodePort,
      preserveDIP ? localEps : externalEps,
      externalDSR,
      PortMappingFlags.LocalRoutedVIP | PortMappingFlags.VipExternalIP,
    );
  }
  for (const ip of externalIPs)
    add('ExternalIP', ip, port.port, externalEps, externalDSR, PortMappingFlags.VipExternalIP);
  for (const ip of lbIPs) {
    const mux = preserveDIP ? PortMappingFlags.UseMux | PortMappingFlags.PreserveDIP : 0;
    add(
      'LoadBalancerIP',
      ip,
      port.port,
      preserveDIP ? localEps : externalEps,
      preserveDIP || localDSR ? LoadBalancerFlags.DSR : 0,
      PortMappingFlags.VipExternalIP | mux,
    );
    const gateway = ctx.gatewayEndpointId;
    if (ctx.config.forwardHealthCheckVip && gateway !== undefined && externalEps.length > 0) {
      const hcPort = svc.healthCheckNodePort || ctx.config.healthzPort;
      lbs.push({
        key: lbKey(family, ip, protocol, hcPort),
        service: svc.key,
        role: 'HealthCheck',
        family,
        vip: ip,
        protocol,
        internalPort: hcPort,
        externalPort: hcPort,
        flags: v6,
        portFlags: mux,
        distribution: Distribution.None,
        ...(sourceVip === undefined ? {} : { sourceVip }),
        endpoints: [{ id: gateway }],
      });
    }
  }
  const remote = new Map<string, RemoteEndpointIntent>();
  for (const lb of lbs) {
    for (const ref of lb.endpoints)
      if ('ip' in ref && !ref.local) remote.set(ref.ip, remoteEndpoint(ref.ip, ctx, family));
  }
  return { loadBalancers: lbs, remoteEndpoints: [...remote.values()], droppedEndpoints: dropped };
}

function remoteEndpoint(ip: string, ctx: RenderContext, family: IPFamily): RemoteEndpointIntent {
  const mac = conjureMac('02-11', ip);
  if (!ctx.network.overlay) return { ip, mac };
  // A remote IP that no remote subnet holds is outside the cluster: upstream uses the node's own IP.
  const pa = providerAddressOf(ctx.network, ip) || (ctx.nodeIPs[family] ?? '');
  return { ip, mac, ...(pa === '' ? {} : { providerAddress: pa }) };
}

/** Overlay: every ClusterIP of the state is a remote endpoint on this node (upstream's service VIP endpoint). */
export function serviceVipEndpoints(state: NodeLocalState, ctx: RenderContext): Map<string, RemoteEndpointIntent> {
  const out = new Map<string, RemoteEndpointIntent>();
  if (!ctx.network.overlay) return out;
  for (const svc of state.services) {
    for (const family of effectiveFamilies(ctx)) {
      const ip = svc.families[family]?.clusterIP;
      if (ip === undefined) continue;
      const pa = ctx.nodeIPs[family];
      out.set(ip, {
        ip,
        mac: ctx.hostMac ?? conjureMac('02-11', ip),
        ...(pa === undefined ? {} : { providerAddress: pa }),
      });
    }
  }
  return out;
}

/**
 * The load balancer's source VIP. Overlay: the configured source VIP, unless an endpoint is a node
 * IP or an address outside the cluster; then the node IP (upstream's rule). L2Bridge: none.
 */
function sourceVipFor(endpoints: readonly LocalEndpoint[], family: IPFamily, ctx: RenderContext): string | undefined {
  if (!ctx.network.overlay) return undefined;
  const configured =
    ctx.config.sourceVip !== undefined && ipFamilyOf(ctx.config.sourceVip) === family
      ? ctx.config.sourceVip
      : undefined;
  const nodeIP = ctx.nodeIPs[family];
  const needsNodeIP = endpoints.some((ep) => {
    if (ep.isLocal) return false;
    const pa = providerAddressOf(ctx.network, ep.ip);
    return pa === '' || pa === ep.ip;
  });
  return needsNodeIP ? (nodeIP ?? configured) : (configured ?? nodeIP);
}

/** Every load balancer and remote endpoint of the state, deduplicated by HNS key (first Service in key order wins). */
export function renderState(
  state: NodeLocalState,
  ctx: RenderContext,
  only?: ReadonlySet<ServiceKey>,
): Map<ServiceKey, ServiceRender> {
  const out = new Map<ServiceKey, ServiceRender>();
  for (const svc of state.services) {
    if (only !== undefined && !only.has(svc.key)) continue;
    out.set(svc.key, renderService(svc, ctx));
  }
  return out;
}

/** The node's first address of each family (core orders InternalIP before ExternalIP). */
export function nodeIPsOf(state: NodeLocalState): Partial<Record<IPFamily, string>> {
  const out: Partial<Record<IPFamily, string>> = {};
  for (const ip of state.node.addresses) {
    const f = ipFamilyOf(ip);
    if (f !== undefined && out[f] === undefined) out[f] = ip;
  }
  return out;
}
