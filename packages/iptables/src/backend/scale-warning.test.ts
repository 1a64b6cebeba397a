import { describe, expect, it } from 'vitest';
import { NFT_FLAVOUR_RULE_LIMIT, nftFlavourWarning } from './scale-warning.js';

describe('the iptables-nft scale warning', () => {
  it.each([
    ['nft', NFT_FLAVOUR_RULE_LIMIT + 1, true],
    ['nft', NFT_FLAVOUR_RULE_LIMIT, false],
    ['nft', 100, false],
    // The measured curve (scale-warning.ts): 375 Services restore in seconds, 750 take more than a minute.
    ['nft', 13_462, false],
    ['nft', 26_141, true],
    ['legacy', 10 * NFT_FLAVOUR_RULE_LIMIT, false],
    [undefined, 10 * NFT_FLAVOUR_RULE_LIMIT, false],
  ] as const)('%s host with %i nat rules: warns %s', (flavour, rules, warns) => {
    const warning = nftFlavourWarning(flavour, rules);
    if (warns) expect(warning).toMatch(new RegExp(`nf_tables flavour .* ${rules} nat rules.*use the nft backend`));
    else expect(warning).toBeUndefined();
  });

  it('takes a lower limit (tests, operators who know their host)', () => {
    expect(nftFlavourWarning('nft', 51, 50)).toBeDefined();
    expect(nftFlavourWarning('nft', 50, 50)).toBeUndefined();
  });
});
