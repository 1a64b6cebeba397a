// Fault suite: `kill -9` and restart of `kpng-nft` as a child process (compiled: build first), under
// traffic and a held connection (fault/restart-suite.ts).
import { expect } from 'vitest';
import { describeRestart } from './fault/restart-suite.js';

await describeRestart('kpng-nft', '2s', (o) => {
  expect(o.firstSyncMs, o.logs).toBeGreaterThan(0);
  expect(o.failures, o.logs).toEqual([]);
  expect(o.held.failures).toEqual([]);
  expect(o.held.exchanges).toBeGreaterThan(10);
  expect(o.after).toEqual(o.before);
  // A restarted program knows nothing of what it wrote before, so its first sync is a full one: the
  // `kpng` tables rewritten (`delete table` and the whole table again) in ONE atomic `nft -f`. Unlike
  // the compat kube-proxy, kpng-nft has no start-up cleanup of other modes' tables: that single
  // transaction is all it writes.
  expect(o.firstSyncWrites.length, o.firstSyncWrites.join('\n')).toBe(1);
  expect(o.firstSyncWrites[0]).toMatch(/^nft pass -f - .*delete table ip kpng;/);
});
