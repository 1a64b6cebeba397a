import type { LocalService, NodeLocalState } from '@kpng/core';

/**
 * What the ipvs suite hands its guest: the first full state, and each one-endpoint change as the
 * Services it replaced (a whole s10k state per change would be tens of megabytes).
 */
export interface IpvsBenchInput {
  readonly runs: number;
  readonly first: NodeLocalState;
  readonly changes: readonly (readonly LocalService[])[];
}

/** The guest's answer, one line on stdout after this marker. */
export const RESULT_MARKER = 'KPNG-IPVS-BENCH ';

export interface IpvsBenchResult {
  readonly ipvs: { readonly full: number[]; readonly partial: number[]; readonly virtualServers: number };
  readonly nft: { readonly full: number[]; readonly partial: number[] };
}

/** The state after replacing the given Services (by key) in `state`. */
export function withServices(state: NodeLocalState, replaced: readonly LocalService[]): NodeLocalState {
  const byKey = new Map(replaced.map((s) => [s.key, s]));
  return { ...state, services: state.services.map((s) => byKey.get(s.key) ?? s) };
}
