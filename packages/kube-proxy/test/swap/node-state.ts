// What is in a lab node's kernel of each proxy mode (both iptables flavours and families,
// nftables tables, upstream ipvs mode's ipsets), read with the usual tools inside its namespace.
import type { NetworkNamespace } from '@kpng/lab';
import { UPSTREAM_IPVS_IPSETS } from '../../src/run/leftovers.js';

export interface NodeState {
  /** `flavour family table/chain` of every KUBE-* chain but kubelet's KUBE-FIREWALL. */
  readonly chains: string[];
  /** Rules in built-in chains jumping to a KUBE-* chain (but KUBE-FIREWALL): hooked into the data path. */
  readonly hooks: string[];
  /** `family name` of every nftables table kube-proxy or kpng uses. */
  readonly tables: string[];
  /** Upstream ipvs mode's ipsets (and their IPv6 twins). */
  readonly ipsets: string[];
}

const TOOLS = [
  ['legacy', 'IPv4', 'iptables-legacy-save'],
  ['legacy', 'IPv6', 'ip6tables-legacy-save'],
  ['nft', 'IPv4', 'iptables-nft-save'],
  ['nft', 'IPv6', 'ip6tables-nft-save'],
] as const;

const IPSETS = new Set([...UPSTREAM_IPVS_IPSETS, ...UPSTREAM_IPVS_IPSETS.map((n) => n.replace(/^KUBE-/, 'KUBE-6-'))]);
const KUBE = /^KUBE-(?!FIREWALL$)/;

export async function nodeState(ns: NetworkNamespace): Promise<NodeState> {
  const chains: string[] = [];
  const hooks: string[] = [];
  for (const [flavour, family, tool] of TOOLS) {
    const { stdout } = await ns.exec([tool]);
    let table = '';
    for (const line of stdout.split('\n')) {
      if (line.startsWith('*')) table = line.slice(1);
      const chain = line.startsWith(':') ? line.slice(1).split(' ')[0]! : '';
      if (KUBE.test(chain)) chains.push(`${flavour} ${family} ${table}/${chain}`);
      const hook = /^-A (PREROUTING|INPUT|FORWARD|OUTPUT|POSTROUTING) .*-j (KUBE-\S+)/.exec(line);
      if (hook && KUBE.test(hook[2]!)) hooks.push(`${flavour} ${family} ${table}: ${line}`);
    }
  }
  const { stdout: listed } = await ns.exec(['nft', 'list', 'tables']);
  const tables = listed
    .split('\n')
    .map((l) => l.replace(/^table /, '').trim())
    .filter((t) => /^(ip|ip6|inet) (kube-proxy|kpng|kpng-ipvs)$/.test(t));
  const { stdout: sets } = await ns.exec(['ipset', 'list', '-n']);
  const ipsets = sets
    .split('\n')
    .map((l) => l.trim())
    .filter((name) => IPSETS.has(name));
  return { chains, hooks, tables, ipsets };
}

export const EMPTY: NodeState = { chains: [], hooks: [], tables: [], ipsets: [] };
