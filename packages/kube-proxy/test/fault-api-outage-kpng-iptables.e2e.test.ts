// Fault suite: the API server down 30 s under `kpng-iptables` (fault/api-outage-suite.ts). The outage is
// core's to survive, yet it runs on every program: each has its own start-up and fresh render.
import { expect } from 'vitest';
import { describeApiOutage } from './fault/api-outage-suite.js';
import { CLUSTER_IP } from '@kpng/lab/fault';

await describeApiOutage('kpng-iptables', (o) => {
  expect(o.failures, o.logs).toEqual([]);
  expect(o.relists, 'the compacted history makes the program relist').toBeGreaterThan(0);
  // No update lost: the rules equal what a fresh program writes for the same API state.
  expect(o.finalRules).toContain(CLUSTER_IP); // the program's rules, not an empty listing
  expect(o.finalRules).toEqual(o.freshRules);
});
