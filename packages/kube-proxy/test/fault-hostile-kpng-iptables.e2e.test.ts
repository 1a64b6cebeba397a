// Fault suite: hostile objects through the API under `kpng-iptables` (fault/hostile-suite.ts).
import { describeHostileObjects } from './fault/hostile-suite.js';

await describeHostileObjects('kpng-iptables');
