import type { IPFamily } from '@kpng/core';
import type { Family, NftObject } from '@kpng/nftables';
import type { DesiredState } from './desired.js';
import { contribute, ElementCounts, VS_SETS } from './filter-elements.js';
import { type IpvsConfig, NFT_TABLE } from './options.js';
import { runSteps, runStepsYielding, type Steps, type TurnBudget } from '@kpng/kit';

/**
 * What IPVS cannot do, in one nftables table per family (nftables rather than upstream's
 * ipset+iptables: one atomic `nft -f` per sync instead of `ipset` plus `iptables-restore`, sets
 * keyed by address . protocol . port where upstream needed eleven ipsets, and the same tool the nft
 * backend and the lab already use):
 * - mark for masquerade before IPVS sees the packet (prerouting, output): NodePort / external / LB
 *   traffic with externalTrafficPolicy Cluster always, ClusterIP traffic from outside the cluster
 *   CIDRs; masquerade marked packets and hairpin connections (a pod reaching itself) in postrouting;
 * - reject new connections to Service ports without any endpoint, drop those whose endpoints are
 *   all elsewhere under a Local policy (input and output run before IPVS's LOCAL_IN/LOCAL_OUT hooks);
 * - reject other ports on Service addresses (they are local addresses on kube-ipvs0), but the
 *   health-check node ports (`health_check_ports`, by port number), as upstream's KUBE-IPVS-FILTER;
 * - drop connections to an LB IP from sources outside its `loadBalancerSourceRanges` (upstream's
 *   KUBE-LOAD-BALANCER-FW / -SOURCE-CIDR / -SOURCE-IP ipsets): `firewall` holds the guarded
 *   address . protocol . port, `firewall_allow` the allowed source ranges for each (an interval set).
 */
export function filterTable(desired: DesiredState, config: IpvsConfig, family: IPFamily): NftObject[] {
  return runSteps(filterSteps(desired, config, family)).objects;
}

export interface FilterTable {
  readonly objects: NftObject[];
  /** What the virtual servers put in the sets, for a later partial sync's delta. */
  readonly counts: ElementCounts;
}

/** `filterTable`, giving the event loop a turn whenever `budget` is spent. */
export function filterTableYielding(
  desired: DesiredState,
  config: IpvsConfig,
  family: IPFamily,
  budget: TurnBudget,
): Promise<FilterTable> {
  return runStepsYielding(filterSteps(desired, config, family), budget);
}

/** One step per virtual server, then per element written (sets are deduplicated as they fill). */
function* filterSteps(desired: DesiredState, config: IpvsConfig, family: IPFamily): Steps<FilterTable> {
  const f: Family = family === 'IPv4' ? 'ip' : 'ip6';
  const ip = family === 'IPv4' ? 'ip' : 'ip6';
  const addr = family === 'IPv4' ? 'ipv4_addr' : 'ipv6_addr';
  const t = { family: f, table: NFT_TABLE } as const;
  const key = `${addr} . inet_proto . inet_service`;
  const target = `${ip} daddr . meta l4proto . th dport`;
  const mark = `0x${(1 << config.masqueradeBit).toString(16)}`;
  const setMark = `meta mark set meta mark | ${mark}`;

  const counts = new ElementCounts();
  const put = (set: string, element: string[]): void => void counts.add(set, element);
  for (const d of desired.virtualServers.values()) {
    if (d.vs.family !== family) continue;
    contribute(d, put);
    yield;
  }
  const clusterCIDRs = config.clusterCIDRs.filter((cidr) => cidr.includes(':') === (family === 'IPv6'));
  const firewall = `${target} @firewall ${target} . ${ip} saddr != @firewall_allow drop`;
  const marks = [`${target} @masq_always ${setMark}`];
  if (clusterCIDRs.length > 0) marks.push(`${ip} saddr != @cluster_cidrs ${target} @masq_outside ${setMark}`);
  const verdicts = [`${target} @reject_ports reject`, `${target} @drop_ports drop`];

  const objects: NftObject[] = [
    { kind: 'table', family: f, name: NFT_TABLE, comment: 'kpng ipvs: masquerade and filtering IPVS cannot do' },
    { kind: 'set', ...t, name: 'service_ips', type: addr, comment: 'addresses on kube-ipvs0' },
    ...VS_SETS.filter((name) => name !== 'firewall_allow').map((name): NftObject => ({
      kind: 'set',
      ...t,
      name,
      type: name === 'hairpin' ? `${key} . ${addr}` : name === 'health_check_ports' ? 'inet_service' : key,
    })),
    { kind: 'set', ...t, name: 'cluster_cidrs', type: addr, flags: ['interval'] },
    { kind: 'set', ...t, name: 'firewall_allow', type: `${key} . ${addr}`, flags: ['interval'] },
    { kind: 'chain', ...t, name: 'prerouting', type: 'filter', hook: 'prerouting', priority: -110 },
    { kind: 'chain', ...t, name: 'output', type: 'filter', hook: 'output', priority: -110 },
    { kind: 'chain', ...t, name: 'input', type: 'filter', hook: 'input', priority: -110 },
    { kind: 'chain', ...t, name: 'postrouting', type: 'nat', hook: 'postrouting', priority: 100 },
    ...[firewall, ...marks].map((rule): NftObject => ({ kind: 'rule', ...t, chain: 'prerouting', rule })),
    ...[firewall, ...marks, ...verdicts].map((rule): NftObject => ({ kind: 'rule', ...t, chain: 'output', rule })),
    ...verdicts.map((rule): NftObject => ({ kind: 'rule', ...t, chain: 'input', rule })),
    {
      kind: 'rule',
      ...t,
      chain: 'input',
      rule: `ct state new ${ip} daddr @service_ips meta l4proto { tcp, udp, sctp } th dport != @health_check_ports ${target} != @service_ports reject`,
    },
    { kind: 'rule', ...t, chain: 'postrouting', rule: `meta mark & ${mark} == ${mark} masquerade` },
    { kind: 'rule', ...t, chain: 'postrouting', rule: `${target} . ${ip} saddr @hairpin masquerade` },
    ...desired.addresses[family].map((a): NftObject => ({ kind: 'element', ...t, set: 'service_ips', key: [a] })),
    ...clusterCIDRs.map((c): NftObject => ({ kind: 'element', ...t, set: 'cluster_cidrs', key: [c] })),
  ];
  for (const [set, key] of counts.entries()) {
    objects.push({ kind: 'element', ...t, set, key });
    yield;
  }
  return { objects, counts };
}
