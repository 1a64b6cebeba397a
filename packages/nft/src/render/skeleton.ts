/**
 * The fixed part of a family's table, declared as data: sets and maps, base chains with their
 * hooks and priorities, and the fixed chains that dispatch into the per-service data. Written on
 * full syncs only; everything Service-specific is map elements and shared selection chains.
 */
import { masqueradeMark } from './config.js';
import type { RenderContext } from './context.js';
import { CHAIN, endpointsMap, PROTOS, SET } from './names.js';
import type { ChainSpec, SetSpec } from './types.js';

const FILTER_PRIORITY = -110; // dstnat - 10: before DNAT in prerouting and output
const NAT_DSTNAT = -100;
const NAT_SRCNAT = 100;
const POST_DNAT_PRIORITY = -90; // dstnat + 10

export function skeletonSets(ctx: RenderContext): SetSpec[] {
  const { addr, addrType } = ctx.syntax;
  const vipKey = `${addrType} . inet_proto . inet_service`;
  const sets: SetSpec[] = [
    {
      kind: 'map',
      name: SET.serviceIPs,
      type: `${vipKey} : verdict`,
      comment: 'ClusterIP, external and load-balancer IP dispatch',
    },
    {
      kind: 'map',
      name: SET.serviceNodePorts,
      type: 'inet_proto . inet_service : verdict',
      comment: 'NodePort dispatch',
    },
    {
      kind: 'map',
      name: SET.noEndpointServices,
      type: `${vipKey} : verdict`,
      comment: 'service addresses without endpoints',
    },
    {
      kind: 'map',
      name: SET.noEndpointNodePorts,
      type: 'inet_proto . inet_service : verdict',
      comment: 'NodePorts without endpoints',
    },
    { kind: 'set', name: SET.firewallIPs, type: vipKey, comment: 'load-balancer IPs with source ranges' },
    {
      kind: 'set',
      name: SET.firewallAllow,
      typeof: `${addr} daddr . meta l4proto . th dport . ${addr} saddr`,
      flags: ['interval'],
      comment: 'allowed sources per load-balancer IP',
    },
    { kind: 'set', name: SET.clusterIPs, type: addrType, comment: 'ClusterIPs in use' },
    { kind: 'set', name: SET.serviceCIDRs, type: addrType, flags: ['interval'], comment: 'service CIDRs' },
    {
      kind: 'set',
      name: SET.nodePortIPs,
      type: addrType,
      flags: ['interval'],
      comment: 'addresses accepting NodePorts',
    },
    { kind: 'set', name: SET.podCIDRs, type: addrType, flags: ['interval'], comment: 'local traffic detector' },
    { kind: 'set', name: SET.hairpin, type: `${addrType} . ${addrType}`, comment: 'local endpoint to itself' },
    {
      kind: 'set',
      name: SET.affinity,
      // The endpoint's hash (seeded with the sticky port's number) is a mark-typed constant in
      // lookups (`meta mark & 0x0 | H`): nft 1.0.6 takes no literal inside a concatenation.
      type: `${addrType} . mark`,
      flags: ['dynamic', 'timeout'],
      size: ctx.config.affinitySetSize,
      comment: 'ClientIP affinity: client, hash of endpoint and sticky port',
      dynamic: true,
    },
    // Referenced by nothing: a periodic resync deletes and re-adds its one element, which fails
    // (and aborts the transaction) when the table or the set was deleted or flushed behind our back.
    { kind: 'set', name: SET.canary, type: addrType, comment: 'probed by periodic resyncs' },
    {
      kind: 'map',
      name: SET.affinityIPs,
      type: `${vipKey} : verdict`,
      comment: 'sticky service ports by address: where to record',
    },
    {
      kind: 'map',
      name: SET.affinityNodePorts,
      type: 'inet_proto . inet_service : verdict',
      comment: 'sticky NodePorts: where to record',
    },
  ];
  for (const proto of PROTOS) {
    sets.push({
      kind: 'map',
      name: endpointsMap(proto),
      // The data side names the protocol: with th dport, nft 1.0.6 cannot add rules using the
      // map once it exists; with tcp dport it adds a tcp dependency, right for a per-protocol map.
      typeof: `${addr} daddr . th dport . numgen random mod 1 : ${addr} daddr . ${proto} dport`,
      comment: `${proto} endpoints by service address, port and slot`,
    });
  }
  return sets;
}

function base(
  name: string,
  type: 'filter' | 'nat',
  hook: 'prerouting' | 'input' | 'forward' | 'output' | 'postrouting',
  priority: number,
  rules: string[],
): ChainSpec {
  return { name, base: { type, hook, priority }, rules };
}

export function skeletonChains(ctx: RenderContext): ChainSpec[] {
  const { addr, loopback } = ctx.syntax;
  const vip = `${addr} daddr . meta l4proto . th dport`;
  const nodePortMatch = `${addr} daddr @${SET.nodePortIPs} fib daddr type local ${addr} daddr != ${loopback}`;
  const mark = masqueradeMark(ctx.config);
  const isNew = 'ct state new';
  // After DNAT the destination is the endpoint: the connection's original one names the port.
  const record = `${isNew} ct status dnat jump ${CHAIN.affinityRecord}`;
  const original = `ct original ${addr} daddr`;
  // `ct original proto-dst` needs a transport protocol in context.
  const l4 = 'meta l4proto { tcp, udp, sctp }';
  return [
    base(CHAIN.filterPrerouting, 'filter', 'prerouting', FILTER_PRIORITY, [`${isNew} jump ${CHAIN.firewallCheck}`]),
    base(CHAIN.filterInput, 'filter', 'input', FILTER_PRIORITY, [
      `${isNew} jump ${CHAIN.nodePortEndpointsCheck}`,
      `${isNew} jump ${CHAIN.serviceEndpointsCheck}`,
      record,
    ]),
    base(CHAIN.filterForward, 'filter', 'forward', FILTER_PRIORITY, [
      `${isNew} jump ${CHAIN.serviceEndpointsCheck}`,
      `${isNew} jump ${CHAIN.clusterIPsCheck}`,
      record,
    ]),
    base(CHAIN.filterOutput, 'filter', 'output', FILTER_PRIORITY, [
      `${isNew} jump ${CHAIN.serviceEndpointsCheck}`,
      `${isNew} jump ${CHAIN.firewallCheck}`,
    ]),
    base(CHAIN.filterOutputPostDnat, 'filter', 'output', POST_DNAT_PRIORITY, [
      `${isNew} jump ${CHAIN.clusterIPsCheck}`,
      record,
    ]),
    base(CHAIN.natPrerouting, 'nat', 'prerouting', NAT_DSTNAT, [`jump ${CHAIN.services}`]),
    base(CHAIN.natOutput, 'nat', 'output', NAT_DSTNAT, [`jump ${CHAIN.services}`]),
    base(CHAIN.natPostrouting, 'nat', 'postrouting', NAT_SRCNAT, [`jump ${CHAIN.masquerading}`]),
    {
      name: CHAIN.services,
      rules: [
        `${vip} vmap @${SET.serviceIPs}`,
        `${nodePortMatch} meta l4proto . th dport vmap @${SET.serviceNodePorts}`,
      ],
    },
    { name: CHAIN.serviceEndpointsCheck, rules: [`${vip} vmap @${SET.noEndpointServices}`] },
    {
      name: CHAIN.nodePortEndpointsCheck,
      rules: [`${nodePortMatch} meta l4proto . th dport vmap @${SET.noEndpointNodePorts}`],
    },
    {
      name: CHAIN.firewallCheck,
      rules: [`${vip} @${SET.firewallIPs} ${vip} . ${addr} saddr != @${SET.firewallAllow} drop`],
    },
    {
      name: CHAIN.clusterIPsCheck,
      rules: [`${addr} daddr @${SET.clusterIPs} goto ${CHAIN.reject}`, `${addr} daddr @${SET.serviceCIDRs} drop`],
    },
    {
      name: CHAIN.affinityRecord,
      rules: [
        `${l4} ${original} . meta l4proto . ct original proto-dst vmap @${SET.affinityIPs}`,
        `${original} @${SET.nodePortIPs} ${original} != ${loopback} ${l4} meta l4proto . ct original proto-dst vmap @${SET.affinityNodePorts}`,
      ],
    },
    { name: CHAIN.markForMasquerade, rules: [`meta mark set meta mark or ${mark}`] },
    {
      name: CHAIN.masquerading,
      rules: [
        `ct status dnat ${addr} saddr . ${addr} daddr @${SET.hairpin} jump ${CHAIN.markForMasquerade}`,
        `meta mark & ${mark} == 0 return`,
        `meta mark set meta mark xor ${mark}`,
        'masquerade fully-random',
      ],
    },
    // A TCP reset is seen at once; an ICMP error arriving while connect() holds the socket is only
    // soft, and the client then waits for its SYN retransmission (seen with IPv6 in the lab).
    { name: CHAIN.reject, rules: ['meta l4proto tcp reject with tcp reset', 'reject'] },
  ];
}

/** The containers that are maps (their elements carry values). */
export const MAP_NAMES: ReadonlySet<string> = new Set([
  SET.serviceIPs,
  SET.serviceNodePorts,
  SET.noEndpointServices,
  SET.noEndpointNodePorts,
  SET.affinityIPs,
  SET.affinityNodePorts,
  ...PROTOS.map(endpointsMap),
]);
