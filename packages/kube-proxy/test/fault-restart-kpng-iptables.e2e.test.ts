// Fault suite: `kill -9` and restart of `kpng-iptables` as a child process (compiled: build first),
// under traffic and a held connection (fault/restart-suite.ts).
import { expect } from 'vitest';
import { describeRestart } from './fault/restart-suite.js';

await describeRestart('kpng-iptables', '3s', (o) => {
  expect(o.firstSyncMs, o.logs).toBeGreaterThan(0);
  expect(o.failures, o.logs).toEqual([]);
  expect(o.held.failures).toEqual([]);
  expect(o.held.exchanges).toBeGreaterThan(10);
  expect(o.after).toEqual(o.before);
  // A restarted program knows nothing of what it wrote before, so its first sync is a full one: one
  // `iptables-restore --noflush` of every KUBE chain per family (a table commits atomically). Unlike
  // the compat kube-proxy, kpng-iptables has no start-up cleanup of the nft modes' tables: these two
  // restores are all it writes.
  const expected = [
    /^iptables-restore pass .*--noflush .*KUBE-SERVICES/,
    /^ip6tables-restore pass .*--noflush .*KUBE-SERVICES/,
  ];
  expect(o.firstSyncWrites.length, o.firstSyncWrites.join('\n')).toBe(expected.length);
  expected.forEach((pattern, i) => expect(o.firstSyncWrites[i]).toMatch(pattern));
});
