// Fault suite: the API server down 30 s under the compat `kube-proxy` in iptables mode
// (fault/api-outage-suite.ts): no connection fails, the missed change (410 Gone, relist) and a new
// one land, and the rules equal what a fresh kube-proxy writes for the same API state.
import { expect } from 'vitest';
import { describeApiOutage } from './fault/api-outage-suite.js';
import { CLUSTER_IP } from '@kpng/lab/fault';

await describeApiOutage('kube-proxy iptables', (o) => {
  expect(o.failures, o.logs).toEqual([]);
  expect(o.relists, 'the compacted history makes the program relist').toBeGreaterThan(0);
  // No update lost: the rules equal what a fresh program writes for the same API state.
  expect(o.finalRules).toContain(CLUSTER_IP); // the program's rules, not an empty listing
  expect(o.finalRules).toEqual(o.freshRules);
});
