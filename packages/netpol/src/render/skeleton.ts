/**
 * The table's fixed part, as data: the verdict maps and the forward chain that consults them,
 * written by the first sync and never changed after.
 *
 * One base chain on the forward hook at filter priority: after prerouting's DNAT (-100), so a
 * Service connection is judged by the pod it reaches, and on every routed packet to or from a
 * local pod. Established and related packets pass first (a policy judges new connections; a reply
 * never needs its own rule). Then the source's egress verdict (the map sends an isolated local
 * pod's packet to its verdict chain, which returns when allowed) and the destination's ingress
 * verdict. Traffic between a pod and its own node (input, output) is always allowed, as
 * NetworkPolicy specifies.
 */
import type { IPFamily } from '@kpng/core';
import type { NftObject } from '@kpng/nftables';
import { ADDRESS, podMap, TABLE } from './names.js';

export const FORWARD_CHAIN = 'forward';

export function skeleton(families: readonly IPFamily[]): NftObject[] {
  const inTable = { family: TABLE.family, table: TABLE.name } as const;
  const objects: NftObject[] = [
    { kind: 'table', family: TABLE.family, name: TABLE.name, comment: 'kpng NetworkPolicy' },
  ];
  const egress: string[] = [];
  const ingress: string[] = [];
  for (const family of families) {
    const { type, match } = ADDRESS[family];
    objects.push(
      { kind: 'map', ...inTable, name: podMap('egress', family), type: `${type} : verdict` },
      { kind: 'map', ...inTable, name: podMap('ingress', family), type: `${type} : verdict` },
    );
    egress.push(`${match} saddr vmap @${podMap('egress', family)}`);
    ingress.push(`${match} daddr vmap @${podMap('ingress', family)}`);
  }
  objects.push({
    kind: 'chain',
    ...inTable,
    name: FORWARD_CHAIN,
    type: 'filter',
    hook: 'forward',
    priority: 'filter',
    policy: 'accept',
  });
  // Egress first: a packet leaves its pod before it reaches the next one.
  for (const rule of ['ct state established,related accept', ...egress, ...ingress])
    objects.push({ kind: 'rule', ...inTable, chain: FORWARD_CHAIN, rule });
  return objects;
}
