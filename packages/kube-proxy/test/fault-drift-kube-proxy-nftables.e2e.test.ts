// Fault suite: nft drift under `kube-proxy nftables` (cases in fault/drift.ts, the run in fault/drift-suite.ts).
import { NFT_DRIFT } from './fault/drift.js';
import { describeDrift } from './fault/drift-suite.js';

await describeDrift('kube-proxy nftables', 'nft', NFT_DRIFT, false);
