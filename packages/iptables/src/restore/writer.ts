/**
 * The iptables-restore input of one sync, in upstream's layout: `*filter` then `*nat` (then the
 * canaries on full syncs), chain declarations first (a declared chain is flushed under
 * --noflush), then rules, then `-X` of chains no longer used (declared, hence empty, and no longer
 * referenced by then). Rules arrive as text blocks (lines each ending in a newline) so a
 * Service's text is joined once and re-used by later syncs, not re-joined line by line.
 */
import { CHAIN } from '../render/names.js';

/** Restore lines joined, each ending in a newline, and how many there are. */
export interface Block {
  readonly text: string;
  readonly lines: number;
}

export const NO_LINES: Block = { text: '', lines: 0 };

export function block(lines: readonly string[]): Block {
  return lines.length === 0 ? NO_LINES : { text: `${lines.join('\n')}\n`, lines: lines.length };
}

/** `:CHAIN - [0:0]` lines: declares (and under --noflush flushes) each chain. */
export function declarations(chains: readonly string[]): Block {
  return block(chains.map((chain) => `:${chain} - [0:0]`));
}

export interface RestoreInput {
  readonly filterChains: readonly string[];
  readonly filterRules: readonly Block[];
  /** Chain declarations of the nat table (top-level chains', then per-service chains'). */
  readonly natChains: readonly Block[];
  /** Top-level nat rules first (KUBE-SERVICES, KUBE-NODEPORTS...), then per-service chains' rules. */
  readonly natRules: readonly Block[];
  readonly deleteChains: readonly string[];
  /** Declare KUBE-PROXY-CANARY in mangle, nat and filter (full syncs). */
  readonly canary: boolean;
  /** `-I BUILTIN ...` lines for jumps missing from the built-in chains, per table. */
  readonly insert?: { readonly filter: readonly string[]; readonly nat: readonly string[] };
}

export interface WrittenInput {
  /** The input in pieces, in order (written to the process as they are: megabytes need no joining). */
  readonly parts: readonly string[];
  readonly filterRules: number;
  readonly natRules: number;
}

export function writeRestore(input: RestoreInput): WrittenInput {
  const out: string[] = [];
  const canary = input.canary ? declarations([CHAIN.canary]).text : '';
  let filterRules = 0;
  let natRules = 0;
  out.push('*filter\n', declarations(input.filterChains).text, canary, block(input.insert?.filter ?? []).text);
  for (const rules of input.filterRules) {
    filterRules += rules.lines;
    out.push(rules.text);
  }
  out.push('COMMIT\n*nat\n');
  for (const chains of input.natChains) out.push(chains.text);
  out.push(declarations(input.deleteChains).text, canary, block(input.insert?.nat ?? []).text);
  for (const rules of input.natRules) {
    natRules += rules.lines;
    out.push(rules.text);
  }
  out.push(block(input.deleteChains.map((chain) => `-X ${chain}`)).text, 'COMMIT\n');
  if (input.canary) out.push('*mangle\n', canary, 'COMMIT\n');
  return { parts: out, filterRules, natRules };
}
