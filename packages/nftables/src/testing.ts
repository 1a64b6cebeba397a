// Test doubles for code built on the nftables library; @kpng/nftables/testing.
export { FakeNft } from './fake/fake-nft.js';
export { ScriptedExecer, type ScriptedCall } from './fake/scripted-execer.js';
