// Fault suite: `kpng-nft` as a child process (compiled: build first) whose kernel writes fail, are
// missing, then hang until its --write-timeout kills them (fault/write-failures-suite.ts): one
// program start for the three phases, as the compat kube-proxy's files.
import { expect } from 'vitest';
import { describeWriteFailures } from './fault/write-failures-suite.js';

await describeWriteFailures('kpng-nft', 2_000, (o) => {
  expect(o.failures, o.logs).toEqual([]);
  expect(o.newServiceDuringFault).toBe(false);
  // Retried (more than one faulty write), counted once per failed sync, not in a hot loop.
  expect(o.faultyWrites.length, o.faultyWrites.join('\n')).toBeGreaterThanOrEqual(2);
  expect(o.faultyWrites.length).toBeLessThanOrEqual(o.retryBound);
  expect(o.syncFailures, o.logs).toBeGreaterThanOrEqual(2);
  expect(o.modeFailures, o.logs).toBeGreaterThanOrEqual(2);
  // Every failed sync of the hang phase is a write the timeout killed; none of the others is.
  expect(o.writeTimeouts, o.logs).toBe(o.phase === 'hang' ? o.syncFailures : 0);
});
