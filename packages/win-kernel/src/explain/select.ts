/**
 * What belongs to one Service among the load balancers HNS holds, printed for `explain`. HNS keeps
 * no Service names, so the Service comes from the API server (core's model form): its load
 * balancers are those on one of its addresses (ClusterIPs, external IPs, LB IPs) and service
 * ports, those without a frontend VIP (the node's NodePorts) on one of its NodePorts, and, on its
 * LB IPs, the forwarded health-check port. Reads what it is given; renders nothing.
 */
import type { ExplainLine, ExplainReport, ExplainSection, ServiceModel } from '@kpng/core';
import { canonicalGuid, isGuid } from '../hcn/guid.js';
import {
  Distribution,
  EndpointFlags,
  LoadBalancerFlags,
  PortMappingFlags,
  PROTOCOL_NUMBERS,
  type HostComputeEndpoint,
  type HostComputeLoadBalancer,
} from '../hcn/schema.js';
import type { FrontendRole } from '../render/intents.js';

export type ServiceFrontends = Pick<
  ServiceModel,
  'clusterIPs' | 'externalIPs' | 'loadBalancerIPs' | 'ports' | 'healthCheckNodePort'
>;

export interface SelectedLoadBalancer {
  readonly role: FrontendRole;
  readonly lb: HostComputeLoadBalancer;
}

const PROTOCOL_NAMES = new Map<number, string>(Object.entries(PROTOCOL_NUMBERS).map(([name, n]) => [n, name]));

/**
 * The Service's load balancers among `all`, each with its role, in HNS's order. `healthzPort`: the
 * health-check port of LB IPs when the Service has no healthCheckNodePort (the backend's setting).
 */
export function selectLoadBalancers(
  service: ServiceFrontends,
  all: readonly HostComputeLoadBalancer[],
  healthzPort: number,
): SelectedLoadBalancer[] {
  const roles = new Map<string, FrontendRole>();
  for (const [list, role] of [
    [service.loadBalancerIPs, 'LoadBalancerIP'],
    [service.externalIPs, 'ExternalIP'],
    [service.clusterIPs, 'ClusterIP'],
  ] as const) {
    for (const ip of list) roles.set(ip, role);
  }
  const protocols = new Set<number>(service.ports.map((p) => PROTOCOL_NUMBERS[p.protocol]));
  const servicePorts = new Set(service.ports.map((p) => `${PROTOCOL_NUMBERS[p.protocol]}/${p.port}`));
  const nodePorts = new Set(
    service.ports.filter((p) => p.nodePort > 0).map((p) => `${PROTOCOL_NUMBERS[p.protocol]}/${p.nodePort}`),
  );
  const hcPort = service.healthCheckNodePort || healthzPort;
  const out: SelectedLoadBalancer[] = [];
  for (const lb of all) {
    const mapping = lb.PortMappings?.[0];
    if (mapping === undefined) continue;
    const port = `${mapping.Protocol ?? 0}/${mapping.ExternalPort ?? 0}`;
    const vips = lb.FrontendVIPs ?? [];
    if (vips.length === 0) {
      if (nodePorts.has(port)) out.push({ role: 'NodePort', lb });
      continue;
    }
    const role = vips.map((ip) => roles.get(ip)).find((r) => r !== undefined);
    if (role === undefined) continue;
    if (servicePorts.has(port)) out.push({ role, lb });
    else if (
      role === 'LoadBalancerIP' &&
      mapping.ExternalPort === hcPort &&
      mapping.InternalPort === hcPort &&
      protocols.has(mapping.Protocol ?? 0)
    )
      out.push({ role: 'HealthCheck', lb });
  }
  return out;
}

/** Names of the bits set in `value`, unknown bits in hex; `none` for 0. */
function flagNames(value: number, names: Readonly<Record<string, number>>): string {
  const out: string[] = [];
  let rest = value;
  for (const [name, bit] of Object.entries(names)) {
    if (bit !== 0 && (value & bit) === bit) {
      out.push(name);
      rest &= ~bit;
    }
  }
  if (rest !== 0) out.push(`0x${rest.toString(16)}`);
  return out.length === 0 ? 'none' : out.join(', ');
}

const DISTRIBUTIONS = new Map<number, string>(Object.entries(Distribution).map(([name, n]) => [n, name]));
/** HNS's text (IDs, addresses) printed as it is when plain, quoted otherwise: nothing reaches the terminal raw. */
const shown = (text: string): string => (/^[\w.:/-]*$/.test(text) ? text : JSON.stringify(text));
const idOf = (id: string | undefined): string =>
  id === undefined ? '(no ID)' : isGuid(id) ? canonicalGuid(id) : shown(id);

/** One section per load balancer: frontend, flags, distribution, source VIP, then its endpoints by IP. */
export function hnsReport(
  source: string,
  selected: readonly SelectedLoadBalancer[],
  endpoints: readonly HostComputeEndpoint[],
): ExplainReport {
  const byId = new Map<string, HostComputeEndpoint>();
  for (const ep of endpoints) if (ep.ID !== undefined) byId.set(idOf(ep.ID), ep);
  const sections: ExplainSection[] = selected.map(({ role, lb }) => {
    const m = lb.PortMappings?.[0] ?? {};
    const protocol = PROTOCOL_NAMES.get(m.Protocol ?? 0) ?? `protocol ${m.Protocol ?? 0}`;
    const frontend = (lb.FrontendVIPs ?? []).map(shown).join(', ') || 'the node (no frontend VIP)';
    const lines: ExplainLine[] = [
      { text: `frontend ${frontend} ${protocol} ${m.ExternalPort ?? 0} -> endpoint port ${m.InternalPort ?? 0}` },
      { text: `load balancer flags: ${flagNames(lb.Flags ?? 0, LoadBalancerFlags)}` },
      { text: `port mapping flags: ${flagNames(m.Flags ?? 0, PortMappingFlags)}` },
      { text: `distribution: ${DISTRIBUTIONS.get(m.DistributionType ?? 0) ?? String(m.DistributionType)}` },
    ];
    if (lb.SourceVIP !== undefined) lines.push({ text: `source VIP: ${shown(lb.SourceVIP)}` });
    const ids = lb.HostComputeEndpoints ?? [];
    if (ids.length === 0) lines.push({ text: 'no endpoints' });
    for (const id of ids) {
      const ep = byId.get(idOf(id));
      if (ep === undefined) {
        lines.push({ text: `endpoint ${idOf(id)}: not an endpoint of the network` });
        continue;
      }
      const ip = ep.IpConfigurations?.map((c) => shown(c.IpAddress)).join(', ') ?? '(no address)';
      const remote = ((ep.Flags ?? 0) & EndpointFlags.RemoteEndpoint) !== 0;
      lines.push({ text: `endpoint ${ip} (${remote ? 'remote' : 'local'}, ${idOf(ep.ID)})` });
    }
    return { title: `${role} load balancer ${idOf(lb.ID)}`, lines };
  });
  return { source, sections };
}
