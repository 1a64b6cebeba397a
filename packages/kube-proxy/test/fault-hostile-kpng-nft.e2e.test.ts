// Fault suite: hostile objects through the API under `kpng-nft` (fault/hostile-suite.ts).
import { expect } from 'vitest';
import { describeHostileObjects } from './fault/hostile-suite.js';

await describeHostileObjects('kpng-nft', (o) => {
  expect(o.failures, o.logs).toEqual([]);
  expect(o.casesMs, 'every case ran under traffic').toBeLessThan(o.maxCasesMs);
  expect(o.fqdnCountedInvalid, 'an FQDN slice is ignored, not invalid').toBe(0);
  expect([o.invalidServiceCounted, o.invalidSliceCounted], 'each invalid object counted').toEqual([1, 1]);
});
