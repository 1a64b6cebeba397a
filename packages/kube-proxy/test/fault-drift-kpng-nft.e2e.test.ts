// Fault suite: nft drift under `kpng-nft` (cases in fault/drift.ts, the run in fault/drift-suite.ts).
import { NFT_DRIFT } from './fault/drift.js';
import { describeDrift } from './fault/drift-suite.js';

await describeDrift('kpng-nft', 'nft', NFT_DRIFT, true);
