import type { IPFamily } from '@kpng/core';

/** The enforcer's one table: both families, apart from every other table on the node. */
export const TABLE = { family: 'inet', name: 'kpng-netpol' } as const;

export type Direction = 'ingress' | 'egress';
export const DIRECTIONS: readonly Direction[] = ['ingress', 'egress'];

const SUFFIX: Readonly<Record<IPFamily, string>> = { IPv4: 'v4', IPv6: 'v6' };

export const ADDRESS: Readonly<Record<IPFamily, { readonly type: string; readonly match: 'ip' | 'ip6' }>> = {
  IPv4: { type: 'ipv4_addr', match: 'ip' },
  IPv6: { type: 'ipv6_addr', match: 'ip6' },
};

/** The verdict map of a direction and family: local pod IP -> `jump` to its verdict chain. */
export function podMap(direction: Direction, family: IPFamily): string {
  return `${direction}-pods-${SUFFIX[family]}`;
}

/** The set of peer group `id` in `family` (its pods' addresses, or addresses . protocol . port). */
export function groupSet(id: number, family: IPFamily): string {
  return `group-${id}-${SUFFIX[family]}`;
}

/** The verdict chain `id`: the rules (both families) of every local pod with the same allow list. */
export function verdictChain(direction: Direction, id: number): string {
  return `${direction}-${id}`;
}
