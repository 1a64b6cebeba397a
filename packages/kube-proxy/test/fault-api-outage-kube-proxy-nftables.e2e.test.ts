// Fault suite: the API server down 30 s under `kube-proxy nftables` (fault/api-outage-suite.ts). The outage is
// core's to survive, the same for every program: it runs on one nft and one iptables program.
import { describeApiOutage } from './fault/api-outage-suite.js';

await describeApiOutage('kube-proxy nftables');
