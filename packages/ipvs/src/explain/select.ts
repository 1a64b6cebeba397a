/**
 * What belongs to one Service in what this node's IPVS, kube-ipvs0 and `kpng-ipvs` tables hold.
 * IPVS keeps no Service names, so the Service comes from the API server (core's model form): its
 * virtual servers are those on one of its addresses (ClusterIPs, external IPs, LB IPs) and ports,
 * and those on one of its NodePorts at an address kube-ipvs0 does not hold (NodePorts sit on host
 * addresses; kube-ipvs0 holds Service IPs). Its filter elements are those keyed by one of those
 * virtual servers (`address . protocol . port`, as `filter-elements.ts` contributes them), and the
 * hairpin elements of its real servers (shared with any Service that has the same endpoint).
 * Reads what it is given; renders nothing.
 */
import type { ExplainReport, ExplainSection, ServiceModel } from '@kpng/core';
import type { IpvsStats } from '../ipvs/codec.js';
import { type IpvsFamily, type ObservedRealServer, type VirtualServer, virtualServerKey } from '../ipvs/types.js';

export interface ObservedVirtualServer {
  readonly vs: VirtualServer;
  readonly stats?: IpvsStats;
}

export interface ObservedReal {
  readonly rs: ObservedRealServer;
  readonly stats?: IpvsStats;
}

/** One element of a `kpng-ipvs` set, as read back (`parseListing`). */
export interface FilterElement {
  readonly set: string;
  readonly key: readonly string[];
}

export type ServiceAddresses = Pick<ServiceModel, 'clusterIPs' | 'externalIPs' | 'loadBalancerIPs' | 'ports'>;

type Role = 'ClusterIP' | 'external IP' | 'LB IP' | 'NodePort';

/** The role each of the Service's addresses plays (a ClusterIP first, as the render adds them). */
function roles(service: ServiceAddresses): Map<string, Role> {
  const out = new Map<string, Role>();
  for (const [list, role] of [
    [service.loadBalancerIPs, 'LB IP'],
    [service.externalIPs, 'external IP'],
    [service.clusterIPs, 'ClusterIP'],
  ] as const) {
    for (const ip of list) out.set(ip, role);
  }
  return out;
}

/**
 * The Service's virtual servers among `all`, each with its role, in the kernel's order.
 * `bound`: the addresses on kube-ipvs0.
 */
export function selectVirtualServers(
  service: ServiceAddresses,
  all: readonly ObservedVirtualServer[],
  bound: readonly string[],
): { readonly observed: ObservedVirtualServer; readonly role: Role }[] {
  const byAddress = roles(service);
  const servicePorts = new Set(service.ports.map((p) => `${p.protocol}/${p.port}`));
  const nodePorts = new Set(service.ports.filter((p) => p.nodePort > 0).map((p) => `${p.protocol}/${p.nodePort}`));
  const onDummy = new Set(bound);
  const out: { observed: ObservedVirtualServer; role: Role }[] = [];
  for (const observed of all) {
    const { vs } = observed;
    const port = `${vs.protocol}/${vs.port}`;
    const role = byAddress.get(vs.address);
    if (role !== undefined && servicePorts.has(port)) out.push({ observed, role });
    else if (role === undefined && nodePorts.has(port) && !onDummy.has(vs.address))
      out.push({ observed, role: 'NodePort' });
  }
  return out;
}

const hostPort = (address: string, port: number): string =>
  `${address.includes(':') ? `[${address}]` : address}:${port}`;

const counters = (stats: IpvsStats | undefined) =>
  stats === undefined ? {} : { packets: stats.packetsIn, bytes: stats.bytesIn };

/** What the text says of the kernel's counters beside packets and bytes in (those are the line's counters). */
const traffic = (stats: IpvsStats | undefined): string =>
  stats === undefined
    ? ''
    : `, ${stats.connections} connections, out ${stats.packetsOut} packets ${stats.bytesOut} bytes`;

function describeVirtualServer(vs: VirtualServer, role: Role, stats: IpvsStats | undefined): string {
  const persistence = vs.persistentSeconds > 0 ? ` persistent ${vs.persistentSeconds}` : '';
  return `${vs.protocol} ${hostPort(vs.address, vs.port)} ${vs.scheduler}${persistence} (${role}${traffic(stats)})`;
}

function describeReal({ rs, stats }: ObservedReal): string {
  return `-> ${hostPort(rs.address, rs.port)} Masq weight ${rs.weight}, active ${rs.activeConnections}, inactive ${rs.inactiveConnections}${traffic(stats)}`;
}

/**
 * The IPVS report: the Service's virtual servers (with the kernel's counters: packets and bytes in,
 * connections and what went out in the text), each one's real servers, and the Service's addresses
 * kube-ipvs0 holds. `reals` answers for one selected virtual server.
 */
export function ipvsReport(
  source: string,
  selected: readonly { readonly observed: ObservedVirtualServer; readonly role: Role }[],
  reals: (vs: VirtualServer) => readonly ObservedReal[],
  service: ServiceAddresses,
  bound: readonly string[],
): ExplainReport {
  if (selected.length === 0) return { source, sections: [] };
  const sections: ExplainSection[] = [
    {
      title: 'virtual servers (ipvsadm -Ln --stats; counters: packets and bytes in)',
      lines: selected.map(({ observed, role }) => ({
        text: describeVirtualServer(observed.vs, role, observed.stats),
        ...counters(observed.stats),
      })),
    },
  ];
  for (const { observed } of selected) {
    const list = reals(observed.vs);
    sections.push({
      title: `real servers of ${virtualServerKey(observed.vs)}`,
      lines:
        list.length === 0
          ? [{ text: '(none: the filter table rejects or drops its traffic)' }]
          : list.map((real) => ({ text: describeReal(real), ...counters(real.stats) })),
    });
  }
  const own = roles(service);
  const held = bound.filter((ip) => own.has(ip));
  if (held.length > 0) sections.push({ title: 'kube-ipvs0 addresses', lines: held.map((text) => ({ text })) });
  return { source, sections };
}

/**
 * One family's filter-table report: the elements keyed by a selected virtual server (and the
 * source ranges of its firewalled LB IPs), and the hairpin elements of its real servers.
 */
export function filterReport(
  source: string,
  family: IpvsFamily,
  elements: readonly FilterElement[],
  selected: readonly VirtualServer[],
  reals: readonly ObservedRealServer[],
): ExplainReport {
  const keys = new Set(
    selected.filter((vs) => vs.family === family).map((vs) => `${vs.address} ${vs.protocol.toLowerCase()} ${vs.port}`),
  );
  const realKeys = new Set(reals.map((rs) => `${rs.address} ${rs.port}`));
  const own: string[] = [];
  const hairpin: string[] = [];
  for (const e of elements) {
    const [address, proto, port] = e.key;
    const text = `@${e.set} { ${e.key.join(' . ')} }`;
    if (e.set === 'hairpin') {
      if (realKeys.has(`${address} ${port}`)) hairpin.push(text);
    } else if (keys.has(`${address} ${proto} ${port}`)) own.push(text);
  }
  const sections: ExplainSection[] = [];
  if (own.length > 0) sections.push({ title: 'its elements', lines: own.map((text) => ({ text })) });
  if (hairpin.length > 0)
    sections.push({
      title: 'hairpin elements of its endpoints (shared by every Service with the same endpoint)',
      lines: hairpin.map((text) => ({ text })),
    });
  return { source, sections };
}
