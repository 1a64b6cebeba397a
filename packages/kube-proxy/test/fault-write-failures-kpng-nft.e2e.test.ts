// Fault suite: `kpng-nft` as a child process (compiled: build first) whose kernel writes hang until its
// --write-timeout kills them (fault/write-failures-suite.ts). The fail and binary-missing phases run on
// the compat kube-proxy only: the same backend and core report them the same way, and the hang phase
// already shows this program failing, counting, retrying, turning unhealthy and recovering.
import { expect } from 'vitest';
import { describeWriteFailures } from './fault/write-failures-suite.js';

await describeWriteFailures(
  'kpng-nft',
  2_000,
  (o) => {
    expect(o.failures, o.logs).toEqual([]);
    expect(o.newServiceDuringFault).toBe(false);
    // Retried (more than one killed write), counted once per failed sync, not in a hot loop.
    expect(o.faultyWrites.length, o.faultyWrites.join('\n')).toBeGreaterThanOrEqual(2);
    expect(o.faultyWrites.length).toBeLessThanOrEqual(o.retryBound);
    expect(
      [o.syncFailures, o.modeFailures].every((n) => n >= 2),
      o.logs,
    ).toBe(true);
    // Every failed sync was a write the timeout killed.
    expect(o.writeTimeouts, o.logs).toBe(o.syncFailures);
  },
  ['hang'],
);
