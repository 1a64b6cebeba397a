// Fault suite: iptables drift under `kpng-iptables` (cases in fault/drift.ts, the run in fault/drift-suite.ts).
import { expect } from 'vitest';
import { IPTABLES_DRIFT } from './fault/drift.js';
import { describeDrift } from './fault/drift-suite.js';

await describeDrift('kpng-iptables', 'iptables', IPTABLES_DRIFT, false, (o) => {
  expect(o.apiChanged, 'no API change was needed').toBe(false);
  expect(o.lateFailures, `connections failed after the repair deadline; logs:\n${o.logs}`).toEqual([]);
  expect(o.repairsAnyKind, `repairs counted; logs:\n${o.logs}`).toBe(1);
  if (o.kindExact) expect(o.repairs).toBe(1);
});
