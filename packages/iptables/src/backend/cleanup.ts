/**
 * `--cleanup` for one family, as upstream's CleanupLeftovers of its iptables and ipvs modes: delete
 * the jumps to kube-proxy's chains (from the built-in chains, and from kube-proxy's own chains
 * that stay), then flush every chain being removed and delete them, in one restore per table
 * (flushing all before deleting any removes the links between them first). Chains of other
 * programs are left alone, and so is KUBE-FIREWALL (with its jumps): kubelet maintains the same
 * chain with the same martian-packet rule, and upstream's cleanup leaves it too.
 *
 * Scope `all` removes the chains of both upstream modes (iptables mode's, which are kpng's, and
 * ipvs mode's); scope `ipvs-mode` only those upstream's ipvs mode has and its iptables mode has
 * not, for an iptables-mode proxy taking over a node that upstream's ipvs mode programmed (the
 * shared chains are then rewritten by that proxy's own sync).
 */
import type { IPFamily } from '@kpng/core';
import { TurnBudget } from '@kpng/kit';
import type { IptablesClient } from '../iptables/client.js';
import { CHAIN, SERVICE_CHAIN } from '../render/names.js';
import { savedRuleChain, splitSavedRule as splitRule } from '../render/jumps.js';
import type { Table } from '../render/skeleton.js';

/**
 * Upstream ipvs mode's chains that its iptables mode does not have (pkg/proxy/ipvs
 * iptablesCleanupChains minus the shared names); its shared ones (KUBE-SERVICES, KUBE-POSTROUTING,
 * KUBE-MARK-MASQ, KUBE-FORWARD, KUBE-PROXY-FIREWALL) are in CHAIN.
 */
export const IPVS_MODE_CHAINS: readonly string[] = [
  'KUBE-NODE-PORT',
  'KUBE-LOAD-BALANCER',
  'KUBE-SOURCE-RANGES-FIREWALL',
  'KUBE-IPVS-FILTER',
  'KUBE-IPVS-OUT-FILTER',
];

export type CleanupScope = 'all' | 'ipvs-mode';

const OWN_CHAINS = new Set<string>(Object.values(CHAIN).filter((chain) => chain !== CHAIN.firewall));
const IPVS_ONLY = new Set(IPVS_MODE_CHAINS);
const BUILTIN = new Set(['PREROUTING', 'INPUT', 'FORWARD', 'OUTPUT', 'POSTROUTING']);

/** Every chain kube-proxy (either mode) or kpng owns. */
function kubeChain(chain: string): boolean {
  return OWN_CHAINS.has(chain) || IPVS_ONLY.has(chain) || SERVICE_CHAIN.test(chain);
}

function removed(scope: CleanupScope): (chain: string) => boolean {
  return scope === 'all' ? kubeChain : (chain) => IPVS_ONLY.has(chain);
}

/** Scanning a dump yields after this much time: a 10k-Service nat dump is ~300,000 lines. */
const SCAN_TURN_MS = 10;

/** The chains to remove and the jumps to them from chains that stay, in one table's dump. */
async function scan(
  dump: string,
  removes: (chain: string) => boolean,
): Promise<{ chains: string[]; jumps: { from: string; args: string[] }[] }> {
  const chains: string[] = [];
  const jumps: { from: string; args: string[] }[] = [];
  const budget = new TurnBudget(SCAN_TURN_MS);
  for (let start = 0; start < dump.length;) {
    await budget.maybeYield();
    const newline = dump.indexOf('\n', start);
    const end = newline < 0 ? dump.length : newline;
    const line = dump.slice(start, end);
    start = end + 1;
    if (line.startsWith(':')) {
      const name = line.slice(1).split(' ')[0] ?? '';
      if (removes(name)) chains.push(name);
      continue;
    }
    if (!line.startsWith('-A ')) continue;
    // A referrer that stays: a built-in chain, or (scope ipvs-mode) a kube-proxy chain that stays.
    // Its chain is read before the line is tokenized: most rules of a 10k-Service table are neither.
    const from = savedRuleChain(line);
    if (!(BUILTIN.has(from) || (kubeChain(from) && !removes(from)))) continue;
    // Only a line naming a removed chain after some ` -j ` is tokenized (exactly, as before).
    if (![...line.matchAll(/ -j (\S+)/g)].some((m) => removes(m[1] ?? ''))) continue;
    const [, , ...args] = splitRule(line);
    const j = args.indexOf('-j');
    const target = j < 0 ? undefined : args[j + 1];
    if (target !== undefined && removes(target)) jumps.push({ from, args });
  }
  return { chains, jumps };
}

/** Removes the chains of `scope` in `family`; returns the `table/chain`s removed. */
export async function cleanupFamily(
  client: IptablesClient,
  family: IPFamily,
  scope: CleanupScope = 'all',
): Promise<string[]> {
  const removes = removed(scope);
  const done: string[] = [];
  for (const table of ['filter', 'nat', 'mangle'] as const satisfies readonly Table[]) {
    const { chains, jumps } = await scan(await client.save(family, table), removes);
    for (const { from, args } of jumps) await client.deleteRule(family, table, from, args);
    if (chains.length === 0) continue;
    const input = [
      `*${table}`,
      ...chains.map((c) => `:${c} - [0:0]`),
      ...chains.map((c) => `-X ${c}`),
      'COMMIT',
      '',
    ].join('\n');
    await client.restore(family, input);
    done.push(...chains.map((c) => `${table}/${c}`));
  }
  return done;
}
