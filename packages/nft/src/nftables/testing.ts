// Test doubles for code built on the nftables library; re-exported by @kpng/nft/testing.
export { FakeNft } from './fake/fake-nft.js';
export { ScriptedExecer, type ScriptedCall } from './fake/scripted-execer.js';
