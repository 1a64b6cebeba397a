// Fault suite: the compat kube-proxy (iptables mode) as a child process (compiled: build first) whose
// kernel writes fail, then hang (fault/write-failures-suite.ts).
import { expect } from 'vitest';
import { describeWriteFailures } from './fault/write-failures-suite.js';

await describeWriteFailures('iptables', 3_000, (o) => {
  expect(o.failures, o.logs).toEqual([]);
  expect(o.newServiceDuringFault).toBe(false);
  if (o.phase !== 'hang') {
    // Retried (more than one failed write), counted once per failed sync, not in a hot loop.
    expect(o.faultyWrites.length, o.faultyWrites.join('\n')).toBeGreaterThanOrEqual(2);
    expect(o.faultyWrites.length).toBeLessThanOrEqual(o.retryBound);
    expect(o.syncFailures).toBeGreaterThanOrEqual(2);
    expect(o.modeFailures).toBeGreaterThanOrEqual(2);
  } else {
    // One write hung for the whole hold: nothing else was attempted meanwhile, nothing failed.
    expect(o.faultyWrites.length, o.faultyWrites.join('\n')).toBeGreaterThanOrEqual(1);
    expect(o.syncFailures).toBe(0);
  }
});
