// Fault suite: hostile objects through the API under `kube-proxy nftables` (fault/hostile-suite.ts).
import { describeHostileObjects } from './fault/hostile-suite.js';

await describeHostileObjects('kube-proxy nftables');
