/**
 * On iptables-nft hosts a kube-proxy-shaped ruleset is pathological at scale: iptables-nft-restore's
 * time grows far faster than the ruleset. Measured with `npm run bench -- s10k --suite iptables
 * --flavours=nft` (first N Services of s10k, medians of 3, 2 shared cores at load 14-22; PERFORMANCE.md):
 *
 * | Services | nat rules | restore |
 * |---|---|---|
 * | 125 | 4,394 | 0.40 s |
 * | 250 | 9,047 | 1.27 s |
 * | 375 | 13,462 | 3.6 s |
 * | 750 | 26,141 | 74 s |
 *
 * Between 13.5k and 26k nat rules the restore goes from seconds to more than a minute (the fitted
 * power law crosses 10 s at 15.8k rules here; 10k Services extrapolate to about a day). The limit
 * sits at that cliff: past it each full sync takes many seconds, and soon minutes.
 */
export const NFT_FLAVOUR_RULE_LIMIT = 15_000;

export function nftFlavourWarning(
  flavour: string | undefined,
  natRules: number,
  limit = NFT_FLAVOUR_RULE_LIMIT,
): string | undefined {
  if (flavour !== 'nft' || natRules <= limit) return undefined;
  return (
    `iptables is the nf_tables flavour and this node's ruleset has ${natRules} nat rules: ` +
    'iptables-nft restores of kube-proxy-shaped rulesets grow much faster than the ruleset ' +
    '(measured: 3.6 s at 13.5k nat rules, 74 s at 26k; 10k Services extrapolate to about a day); ' +
    'use the nft backend (kpng-nft, --proxy-mode nftables) or iptables-legacy'
  );
}
