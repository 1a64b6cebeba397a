// A program's rules as the kernel lists them, comparable between two listings: counters removed
// (they change with every packet) and each nft set's or map's elements sorted (the kernel lists a
// hash set in its own order, which a table written afresh need not repeat).
import type { NetworkNamespace } from '@kpng/lab';
import { nftTableOf, type ProgramName } from './program-args.js';

export async function ruleSnapshot(ns: NetworkNamespace, program: ProgramName): Promise<string> {
  const table = nftTableOf(program);
  const argv = table !== undefined ? ['nft', 'list', 'table', 'ip', table] : ['iptables-save'];
  const text = (await ns.exec(argv)).stdout;
  return text
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .map((l) => l.replace(/counter packets \d+ bytes \d+/g, 'counter').replace(/\[\d+:\d+\]/g, '[0:0]'))
    .join('\n')
    .replace(/elements = \{([^}]*)\}/g, (_, list: string) => {
      const elements = list.split(',').map((e) => e.trim().replace(/\s+/g, ' '));
      return `elements = { ${elements.sort().join(', ')} }`;
    });
}
