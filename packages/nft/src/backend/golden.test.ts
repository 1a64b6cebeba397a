// Golden dump: the FakeNft state after one sync of a small dual-stack scenario, in the library's
// deterministic `add …` form. Regenerate with UPDATE_GOLDEN=1 after an intended change, and read
// the diff: it is the ruleset change.
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FakeNft } from '@kpng/nftables/testing';
import { nodeState } from '../testing/fixtures.js';
import { clusterIPs, externalIPs, on } from '../testing/scenarios.js';
import { RecordingLogger } from '@kpng/core/testing';
import { NftBackend } from './nft-backend.js';

const GOLDEN = new URL('./testdata/small.golden.nft', import.meta.url);

describe('golden dump', () => {
  it('matches testdata/small.golden.nft', async () => {
    const nft = new FakeNft();
    const backend = new NftBackend({
      nft,
      conntrack: false,
      log: new RecordingLogger(),
      localDetector: { mode: 'ClusterCIDR', clusterCIDRs: ['198.18.0.0/22', '2001:db8::/46'] },
      serviceCIDRs: ['198.19.0.0/16', '2001:db8:5e::/64'],
    });
    const state = nodeState([
      { name: 'web', clusterIPs: clusterIPs(10), ports: [{ port: 80, nodePort: 30080 }], endpoints: on('a', 'c') },
      {
        name: 'local',
        clusterIPs: clusterIPs(15),
        externalIPs: externalIPs(72),
        externalLocal: true,
        ports: [{ port: 80 }],
        endpoints: on('a', 'c'),
      },
      {
        name: 'sticky',
        clusterIPs: clusterIPs(19),
        affinity: 60,
        ports: [{ protocol: 'UDP', port: 53 }],
        endpoints: on('b'),
      },
      { name: 'empty', clusterIPs: clusterIPs(12), endpoints: [] },
    ]);
    await backend.sync({ state, changes: { triggerTimes: new Map(), nodeChanged: false }, full: true, revision: 1 });
    const dump = nft.dump();
    if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(GOLDEN, dump);
    expect(dump).toBe(readFileSync(GOLDEN, 'utf8'));
  });
});
