// Fault suite: the API server down 30 s under `kube-proxy nftables` (fault/api-outage-suite.ts). The outage is
// core's to survive, the same for every program: it runs on one nft and one iptables program.
import { expect } from 'vitest';
import { describeApiOutage } from './fault/api-outage-suite.js';

await describeApiOutage('kube-proxy nftables', (o) => {
  expect(o.failures, o.logs).toEqual([]);
  expect(o.relists, 'the compacted history makes the program relist').toBeGreaterThan(0);
});
