/**
 * On iptables-nft hosts a kube-proxy-shaped ruleset is pathological at scale: iptables-nft-restore's
 * time grows far faster than the ruleset (`npm run bench -- s10k --suite iptables --flavours=nft`
 * measures the curve; its figures: docs/PERFORMANCE.md). Between 13.5k and 26k nat rules the restore
 * goes from seconds to more than a minute. The limit sits at that cliff: past it each full sync takes
 * many seconds, and soon minutes.
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
