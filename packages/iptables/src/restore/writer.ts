/**
 * The iptables-restore input of one sync, in upstream's layout: `*filter` then `*nat` (then the
 * canaries on full syncs), chain declarations first (a declared chain is flushed under
 * --noflush), then rules, then `-X` of chains no longer used (declared, hence empty, and no longer
 * referenced by then).
 */
import { CHAIN } from '../render/names.js';

export interface RestoreInput {
  readonly filterChains: readonly string[];
  readonly filterRules: readonly (readonly string[])[];
  readonly natChains: readonly string[];
  /** Top-level nat rules first (KUBE-SERVICES, KUBE-NODEPORTS...), then per-service chains' rules. */
  readonly natRules: readonly (readonly string[])[];
  readonly deleteChains: readonly string[];
  /** Declare KUBE-PROXY-CANARY in mangle, nat and filter (full syncs). */
  readonly canary: boolean;
  /** `-I BUILTIN ...` lines for jumps missing from the built-in chains, per table. */
  readonly insert?: { readonly filter: readonly string[]; readonly nat: readonly string[] };
}

export interface WrittenInput {
  readonly text: string;
  readonly filterRules: number;
  readonly natRules: number;
}

export function writeRestore(input: RestoreInput): WrittenInput {
  const out: string[] = [];
  const declare = (chain: string): void => void out.push(`:${chain} - [0:0]`);
  let filterRules = 0;
  let natRules = 0;
  out.push('*filter');
  input.filterChains.forEach(declare);
  if (input.canary) declare(CHAIN.canary);
  for (const line of input.insert?.filter ?? []) out.push(line);
  for (const block of input.filterRules) {
    filterRules += block.length;
    for (const line of block) out.push(line);
  }
  out.push('COMMIT', '*nat');
  input.natChains.forEach(declare);
  input.deleteChains.forEach(declare);
  if (input.canary) declare(CHAIN.canary);
  for (const line of input.insert?.nat ?? []) out.push(line);
  for (const block of input.natRules) {
    natRules += block.length;
    for (const line of block) out.push(line);
  }
  for (const chain of input.deleteChains) out.push(`-X ${chain}`);
  out.push('COMMIT');
  if (input.canary) out.push('*mangle', `:${CHAIN.canary} - [0:0]`, 'COMMIT');
  out.push('');
  return { text: out.join('\n'), filterRules, natRules };
}
