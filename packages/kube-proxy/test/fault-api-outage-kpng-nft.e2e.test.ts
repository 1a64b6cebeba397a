// Fault suite: the API server down 30 s under `kpng-nft` (fault/api-outage-suite.ts): no connection
// fails, the missed change (410 Gone, relist) and a new one land, and the rules equal what a fresh
// kpng-nft writes for the same API state (each nft set's elements sorted).
import { expect } from 'vitest';
import { describeApiOutage } from './fault/api-outage-suite.js';
import { CLUSTER_IP } from '@kpng/lab/fault';

await describeApiOutage('kpng-nft', (o) => {
  expect(o.failures, o.logs).toEqual([]);
  expect(o.relists, 'the compacted history makes the program relist').toBeGreaterThan(0);
  // No update lost: the rules equal what a fresh program writes for the same API state.
  expect(o.finalRules).toContain(CLUSTER_IP); // the program's rules, not an empty listing
  expect(o.finalRules).toEqual(o.freshRules);
});
