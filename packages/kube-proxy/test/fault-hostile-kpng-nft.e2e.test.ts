// Fault suite: hostile objects through the API under `kpng-nft` (fault/hostile-suite.ts).
import { describeHostileObjects } from './fault/hostile-suite.js';

await describeHostileObjects('kpng-nft');
