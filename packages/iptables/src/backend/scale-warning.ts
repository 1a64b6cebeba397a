/**
 * On iptables-nft hosts a kube-proxy-shaped ruleset is pathological at scale (PERFORMANCE.md:
 * `iptables-nft-restore` of a 1k-Service nat table, 42k lines, takes 5.1 s on a 2-core host, where
 * iptables-legacy takes 0.28 s; 10k Services did not finish in 45 minutes). Past this many nat
 * rules each full sync takes seconds and grows much faster than the ruleset.
 */
export const NFT_FLAVOUR_RULE_LIMIT = 20_000;

export function nftFlavourWarning(
  flavour: string | undefined,
  natRules: number,
  limit = NFT_FLAVOUR_RULE_LIMIT,
): string | undefined {
  if (flavour !== 'nft' || natRules <= limit) return undefined;
  return (
    `iptables is the nf_tables flavour and this node's ruleset has ${natRules} nat rules: ` +
    'iptables-nft restores of kube-proxy-shaped rulesets take seconds at 1,000 Services and do not finish at 10,000; ' +
    'use the nft backend (kpng-nft, --proxy-mode nftables) or iptables-legacy'
  );
}
