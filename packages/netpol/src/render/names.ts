import type { IPFamily } from '@kpng/core';

/** The enforcer's one table: both families, apart from every other table on the node. */
export const TABLE = { family: 'inet', name: 'kpng-netpol' } as const;

export type Direction = 'ingress' | 'egress';
export const DIRECTIONS: readonly Direction[] = ['ingress', 'egress'];

const SUFFIX: Readonly<Record<IPFamily, string>> = { IPv4: 'v4', IPv6: 'v6' };

/** The sets of one direction and family (chain names follow the same pattern). */
export function setNames(direction: Direction, family: IPFamily) {
  const suffix = SUFFIX[family];
  return {
    /** Local pod IPs isolated in this direction. */
    isolated: `${direction}-isolated-${suffix}`,
    /** pod . peer . protocol . port, for rules with ports: ranges (ipBlocks, port ranges). */
    ports: `${direction}-allow-ports-${suffix}`,
    /** pod . peer, for rules without ports (every protocol): ranges. */
    any: `${direction}-allow-any-${suffix}`,
    /** The same two for one peer IP and one port: hash sets, whose updates cost O(1) at any size. */
    exactPorts: `${direction}-allow-exact-ports-${suffix}`,
    exactAny: `${direction}-allow-exact-any-${suffix}`,
    /** The chain isolated traffic jumps to. */
    chain: `${direction}-${suffix}`,
  } as const;
}
