/**
 * `--cleanup` for one family, as upstream's CleanupLeftovers: delete the jumps from the built-in
 * chains to kube-proxy's chains, then flush and delete every kube-proxy chain (top-level, canary,
 * per-service) in one restore per table. Chains of other programs are left alone, and so is
 * KUBE-FIREWALL (with its jumps): kubelet maintains the same chain with the same martian-packet
 * rule, and upstream's cleanup leaves it too.
 */
import type { IPFamily } from '@kpng/core';
import type { IptablesClient } from '../iptables/client.js';
import { CHAIN, SERVICE_CHAIN } from '../render/names.js';
import { splitSavedRule as splitRule } from '../render/jumps.js';
import type { Table } from '../render/skeleton.js';

const OWN_CHAINS = new Set<string>(Object.values(CHAIN).filter((chain) => chain !== CHAIN.firewall));
const BUILTIN = new Set(['PREROUTING', 'INPUT', 'FORWARD', 'OUTPUT', 'POSTROUTING']);

function owned(chain: string): boolean {
  return OWN_CHAINS.has(chain) || SERVICE_CHAIN.test(chain);
}

export async function cleanupFamily(client: IptablesClient, family: IPFamily): Promise<void> {
  for (const table of ['filter', 'nat', 'mangle'] as const satisfies readonly Table[]) {
    const dump = await client.save(family, table);
    const chains: string[] = [];
    for (const line of dump.split('\n')) {
      if (line.startsWith(':')) {
        const name = line.slice(1).split(' ')[0] ?? '';
        if (owned(name)) chains.push(name);
      } else if (line.startsWith('-A ')) {
        const [, from, ...args] = splitRule(line);
        const j = args.indexOf('-j');
        const target = j < 0 ? undefined : args[j + 1];
        if (from !== undefined && BUILTIN.has(from) && target !== undefined && owned(target))
          await client.deleteRule(family, table, from, args);
      }
    }
    if (chains.length === 0) continue;
    const input = [
      `*${table}`,
      ...chains.map((c) => `:${c} - [0:0]`),
      ...chains.map((c) => `-X ${c}`),
      'COMMIT',
      '',
    ].join('\n');
    await client.restore(family, input);
  }
}
