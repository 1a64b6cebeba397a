// Test doubles for code built on the nftables library; @kpng/nftables/testing.
export { FakeNft } from './fake/fake-nft.js';
