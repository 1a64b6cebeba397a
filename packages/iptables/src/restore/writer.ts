/**
 * The iptables-restore input of one sync. Each table is applied at its own `COMMIT`, so tables
 * may come in any order: a partial sync writes `*filter` then `*nat`, as upstream does; a full
 * sync writes `*nat` first so that its bulk can be sent to the already-started restore while it
 * renders, its `COMMIT` last (see FamilyProgrammer.prepare), then `*filter`, then the canaries.
 * In the nat table: the top-level chains' declarations (a declared chain is flushed under
 * --noflush), then per Service its chains' declarations, its top-level rules and its chains'
 * rules (appends to different chains commute, and each chain is declared before any rule jumps to
 * it), then the static top-level rules, then the chains no longer used: declared (flushed: no
 * longer referenced by then) and `-X`. Rules arrive as text blocks (lines each ending in a
 * newline) so a Service's text is joined once and re-used by later syncs.
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

/** `*nat` and what precedes every Service's text: the top-level chains' declarations (and the canary's). */
export function natHead(chains: readonly string[], canary: boolean): string {
  return `*nat\n${declarations(chains).text}${canary ? declarations([CHAIN.canary]).text : ''}`;
}

export interface RestoreInput {
  readonly filterChains: readonly string[];
  readonly filterRules: readonly Block[];
  /** {@link natHead} of the nat table. */
  readonly natHead: string;
  /** The nat table's body: per Service its declarations, top-level rules and chains' rules; then the static rules. */
  readonly nat: readonly string[];
  readonly deleteChains: readonly string[];
  /** Declare KUBE-PROXY-CANARY in mangle, nat and filter (full syncs). */
  readonly canary: boolean;
  /** `-I BUILTIN ...` lines for jumps missing from the built-in chains, per table. */
  readonly insert?: { readonly filter: readonly string[]; readonly nat: readonly string[] };
  /** `*nat` before `*filter` (full syncs). */
  readonly natFirst: boolean;
}

export interface WrittenInput {
  /** The input in pieces, in order (written to the process as they are: 3 MB at s1k need no joining). */
  readonly parts: readonly string[];
  /** With `natFirst`: how many leading parts are the nat head and body (what a full sync may have sent while rendering). */
  readonly natBodyParts: number;
  readonly filterRules: number;
}

export function writeRestore(input: RestoreInput): WrittenInput {
  const canary = input.canary ? declarations([CHAIN.canary]).text : '';
  let filterRules = 0;
  const filter = ['*filter\n', declarations(input.filterChains).text, canary, block(input.insert?.filter ?? []).text];
  for (const rules of input.filterRules) {
    filterRules += rules.lines;
    filter.push(rules.text);
  }
  filter.push('COMMIT\n');
  const nat = [input.natHead, ...input.nat];
  const natBodyParts = nat.length;
  nat.push(
    declarations(input.deleteChains).text,
    block(input.insert?.nat ?? []).text,
    block(input.deleteChains.map((chain) => `-X ${chain}`)).text,
    'COMMIT\n',
  );
  const parts = input.natFirst ? [...nat, ...filter] : [...filter, ...nat];
  if (input.canary) parts.push('*mangle\n', canary, 'COMMIT\n');
  return { parts, natBodyParts: input.natFirst ? natBodyParts : 0, filterRules };
}
