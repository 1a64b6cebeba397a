/** Which binary runs for a family and flavour: `iptables-legacy-restore`, `ip6tables-nft-save`, `iptables`... */
import type { IPFamily } from '@kpng/core';
import type { IptablesFlavour } from '../render/config.js';

export type Tool = 'iptables' | 'restore' | 'save';

export function command(family: IPFamily, flavour: IptablesFlavour, tool: Tool): string {
  const base = family === 'IPv4' ? 'iptables' : 'ip6tables';
  const suffix = tool === 'iptables' ? '' : `-${tool}`;
  return flavour === 'auto' ? `${base}${suffix}` : `${base}-${flavour}${suffix}`;
}

/** The flavour `iptables --version` reports: `iptables v1.8.9 (nf_tables)` or `(legacy)`. */
export function flavourOf(versionText: string): 'legacy' | 'nft' | undefined {
  if (/\(nf_tables\)/.test(versionText)) return 'nft';
  if (/\(legacy\)/.test(versionText)) return 'legacy';
  return undefined;
}
