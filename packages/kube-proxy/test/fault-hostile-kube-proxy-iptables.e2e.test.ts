// Fault suite: hostile objects through the API under `kube-proxy iptables` (fault/hostile-suite.ts).
import { describeHostileObjects } from './fault/hostile-suite.js';

await describeHostileObjects('kube-proxy iptables');
