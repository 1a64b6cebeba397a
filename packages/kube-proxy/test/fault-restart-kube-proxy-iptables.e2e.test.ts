// Fault suite: `kill -9` and restart of the compat kube-proxy (iptables mode) as a child process
// (compiled: build first), under traffic and a held connection (fault/restart-suite.ts).
import { expect } from 'vitest';
import { describeRestart } from './fault/restart-suite.js';

await describeRestart('kube-proxy iptables', '3s', (o) => {
  expect(o.firstSyncMs, o.logs).toBeGreaterThan(0);
  expect(o.failures, o.logs).toEqual([]);
  expect(o.held.failures).toEqual([]);
  expect(o.held.exchanges).toBeGreaterThan(10);
  expect(o.after).toEqual(o.before);
  // A restarted proxy knows nothing of what it wrote before, so its first sync is a full one: one
  // `iptables-restore --noflush` of every KUBE chain per family, as upstream's (a table commits
  // atomically: the traffic above is the proof, and the rules after equal those before). Right
  // after it (inside that first sync, so the old rules serve meanwhile: src/run/platform-cleanup.ts),
  // the compat start-up removes what the nftables-based modes may have left (the nft tables
  // `kpng-ipvs`, `kube-proxy` and `kpng`): writes too, not touching these rules.
  const expected = [
    /^iptables-restore pass .*--noflush .*KUBE-SERVICES/,
    /^ip6tables-restore pass .*--noflush .*KUBE-SERVICES/,
    /^nft pass -f - .*delete table ip kpng-ipvs;/,
    /^nft pass -f - .*delete table ip kube-proxy;/,
    /^nft pass -f - .*delete table ip kpng;/,
  ];
  expect(o.firstSyncWrites.length, o.firstSyncWrites.join('\n')).toBe(expected.length);
  expected.forEach((pattern, i) => expect(o.firstSyncWrites[i]).toMatch(pattern));
});
