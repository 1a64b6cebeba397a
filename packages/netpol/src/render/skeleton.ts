/**
 * The table's fixed part, as data: sets, chains and rules never change after the first sync;
 * every policy, pod or label change is an element update of the sets.
 *
 * One base chain on the forward hook at filter priority: after prerouting's DNAT (-100), so a
 * Service connection is judged by the pod it reaches, and on every routed packet to or from a
 * local pod. Established and related packets pass first (a policy judges new connections; a reply
 * never needs its own rule). Traffic between a pod and its own node (input, output) is always
 * allowed, as NetworkPolicy specifies.
 */
import type { IPFamily } from '@kpng/core';
import type { NftObject } from '@kpng/nftables';
import { DIRECTIONS, setNames, TABLE } from './names.js';

const ADDRESS: Readonly<Record<IPFamily, { type: string; match: string }>> = {
  IPv4: { type: 'ipv4_addr', match: 'ip' },
  IPv6: { type: 'ipv6_addr', match: 'ip6' },
};

export const FORWARD_CHAIN = 'forward';

export function skeleton(families: readonly IPFamily[]): NftObject[] {
  const inTable = { family: TABLE.family, table: TABLE.name } as const;
  const objects: NftObject[] = [
    { kind: 'table', family: TABLE.family, name: TABLE.name, comment: 'kpng NetworkPolicy' },
  ];
  const dispatch: string[] = ['ct state established,related accept'];
  for (const family of families) {
    const { type, match } = ADDRESS[family];
    for (const direction of DIRECTIONS) {
      const names = setNames(direction, family);
      const [local, peer] = direction === 'ingress' ? ['daddr', 'saddr'] : ['saddr', 'daddr'];
      objects.push(
        { kind: 'set', ...inTable, name: names.isolated, type },
        {
          kind: 'set',
          ...inTable,
          name: names.ports,
          type: `${type} . ${type} . inet_proto . inet_service`,
          flags: ['interval'],
        },
        { kind: 'set', ...inTable, name: names.any, type: `${type} . ${type}`, flags: ['interval'] },
        { kind: 'set', ...inTable, name: names.exactPorts, type: `${type} . ${type} . inet_proto . inet_service` },
        { kind: 'set', ...inTable, name: names.exactAny, type: `${type} . ${type}` },
        { kind: 'chain', ...inTable, name: names.chain },
      );
      // Egress returns so the destination's ingress is judged too (pod to pod on this node).
      const verdict = direction === 'ingress' ? 'accept' : 'return';
      objects.push(
        {
          kind: 'rule',
          ...inTable,
          chain: names.chain,
          rule: `${match} ${local} . ${match} ${peer} . meta l4proto . th dport @${names.exactPorts} ${verdict}`,
        },
        {
          kind: 'rule',
          ...inTable,
          chain: names.chain,
          rule: `${match} ${local} . ${match} ${peer} @${names.exactAny} ${verdict}`,
        },
        {
          kind: 'rule',
          ...inTable,
          chain: names.chain,
          rule: `${match} ${local} . ${match} ${peer} . meta l4proto . th dport @${names.ports} ${verdict}`,
        },
        {
          kind: 'rule',
          ...inTable,
          chain: names.chain,
          rule: `${match} ${local} . ${match} ${peer} @${names.any} ${verdict}`,
        },
        {
          kind: 'rule',
          ...inTable,
          chain: names.chain,
          rule: 'counter drop',
          comment: `${direction} not allowed by policy`,
        },
      );
      dispatch.push(`${match} ${local} @${names.isolated} jump ${names.chain}`);
    }
  }
  // Egress first: a packet leaves its pod before it reaches the next one.
  const ordered = [
    dispatch[0] as string,
    ...dispatch.filter((rule) => rule.includes('jump egress')),
    ...dispatch.filter((rule) => rule.includes('jump ingress')),
  ];
  objects.push({
    kind: 'chain',
    ...inTable,
    name: FORWARD_CHAIN,
    type: 'filter',
    hook: 'forward',
    priority: 'filter',
    policy: 'accept',
  });
  for (const rule of ordered) objects.push({ kind: 'rule', ...inTable, chain: FORWARD_CHAIN, rule });
  return objects;
}
