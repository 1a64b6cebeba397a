// Fault suite: `kill -9` and restart of the compat kube-proxy (nftables mode) as a child process
// (compiled: build first), under traffic and a held connection (fault/restart-suite.ts).
import { expect } from 'vitest';
import { describeRestart } from './fault/restart-suite.js';

await describeRestart('kube-proxy nftables', '2s', (o) => {
  expect(o.firstSyncMs, o.logs).toBeGreaterThan(0);
  expect(o.failures, o.logs).toEqual([]);
  expect(o.held.failures).toEqual([]);
  expect(o.held.exchanges).toBeGreaterThan(10);
  expect(o.after).toEqual(o.before);
  // A restarted proxy knows nothing of what it wrote before, so its first sync is a full one: the
  // `kube-proxy` table rewritten (`delete table` and the whole table again) in ONE atomic `nft -f`,
  // as upstream's. Atomic: no packet sees a half-written table (the traffic above is the proof, and
  // the rules after equal those before). Right after it (inside that first sync, so the old rules
  // serve meanwhile: src/run/platform-cleanup.ts), the compat start-up removes what the other modes
  // may have left (kpng-ipvs' table, kpng-nft's `kpng`): writes too, not touching these rules.
  const expected = [
    /^nft pass -f - .*delete table ip kube-proxy;/,
    /^nft pass -f - .*delete table ip kpng-ipvs;/,
    /^nft pass -f - .*delete table ip kpng;/,
  ];
  expect(o.firstSyncWrites.length, o.firstSyncWrites.join('\n')).toBe(expected.length);
  expected.forEach((pattern, i) => expect(o.firstSyncWrites[i]).toMatch(pattern));
});
