// The rendered ruleset on the real nft 1.0.x, inside a namespace this file creates: every rule
// shape loads as a first (reset) sync, as a full resync onto existing sets and maps, and as partial
// syncs adding and removing shared chains; cleanup leaves nothing.
import { serviceKey, type NodeLocalState, type ServiceKey, type SyncRequest } from '@kpng/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NftBackend } from '../src/backend/nft-backend.js';
import { createNftClient, type NftClient } from '@kpng/nftables';
import { nodeState, type ServiceFixture } from '../src/testing/fixtures.js';
import { allFeatures, clusterIPs, on } from '../src/testing/scenarios.js';
import { createNamespace, kernelE2e, sweepLeftovers, type NetworkNamespace } from './lab.js';

const e2e = await kernelE2e('nft backend ruleset');

const request = (state: NodeLocalState, full: boolean, changed: string[] = [], revision = 1): SyncRequest => ({
  state,
  changes: {
    ...(full
      ? {}
      : { updatedServices: new Set(changed.map((n) => serviceKey('default', n))) as ReadonlySet<ServiceKey> }),
    triggerTimes: new Map(),
    nodeChanged: false,
  },
  full,
  revision,
});

describe.skipIf(!e2e.run)('rendered ruleset on the real nft', () => {
  let ns: NetworkNamespace;
  let client: NftClient;

  beforeAll(async () => {
    await sweepLeftovers();
    ns = await createNamespace('nft-ruleset');
    client = await createNftClient({ netns: ns.name });
  });
  afterAll(async () => {
    await ns?.delete();
  });

  const detectors = [
    {
      name: 'ClusterCIDR',
      config: { localDetector: { mode: 'ClusterCIDR', clusterCIDRs: ['198.18.0.0/17', '2001:db8::/40'] } },
    },
    { name: 'NodeCIDR + masqueradeAll', config: { localDetector: { mode: 'NodeCIDR' }, masqueradeAll: true } },
    { name: 'BridgeInterface', config: { localDetector: { mode: 'BridgeInterface', bridge: 'cbr0' } } },
    {
      name: 'InterfaceNamePrefix',
      config: {
        localDetector: { mode: 'InterfaceNamePrefix', prefix: 'veth' },
        nodePortAddresses: ['0.0.0.0/0', '::/0'],
      },
    },
  ] as const;

  it.each(detectors)('loads, resyncs, syncs partially and cleans up ($name)', async ({ config }) => {
    const backend = new NftBackend({
      ...config,
      nft: client,
      conntrack: false,
      serviceCIDRs: ['198.19.0.0/16', '2001:db8:5e::/64'],
    });
    const services = allFeatures();
    await backend.sync(request(nodeState(services), true));
    await backend.sync(request(nodeState(services), true, [], 2));

    const changed: ServiceFixture[] = services
      .filter((s) => s.name !== 'sctp')
      .map((s) =>
        s.name === 'web'
          ? { ...s, endpoints: on('a', 'c', 'd') }
          : s.name === 'sticky'
            ? { ...s, endpoints: on('a', 'b', 'c') }
            : s,
      );
    changed.push({
      name: 'new-udp',
      clusterIPs: clusterIPs(40),
      ports: [{ protocol: 'UDP', port: 7, nodePort: 30007 }],
      affinity: 10,
      endpoints: on('a', 'b', 'c', 'd'),
    });
    await backend.sync(request(nodeState(changed), false, ['web', 'sticky', 'sctp', 'new-udp'], 3));
    await backend.sync(request(nodeState(services), false, ['web', 'sticky', 'sctp', 'new-udp'], 4));

    // What the kernel holds equals what a fresh instance writes for the same state.
    const listed = await client.listTable('ip', 'kpng');
    expect(listed.filter((o) => o.kind === 'chain').length).toBeGreaterThan(10);
    const chainsAfterChurn = listed
      .filter((o) => o.kind === 'chain')
      .map((o) => o.name)
      .sort();
    const fresh = new NftBackend({
      ...config,
      nft: client,
      conntrack: false,
      serviceCIDRs: ['198.19.0.0/16', '2001:db8:5e::/64'],
    });
    await fresh.sync(request(nodeState(services), true));
    const chainsFresh = (await client.listTable('ip', 'kpng'))
      .filter((o) => o.kind === 'chain')
      .map((o) => o.name)
      .sort();
    expect(chainsAfterChurn).toEqual(chainsFresh);

    await fresh.cleanup();
    const { stdout } = await ns.exec(['nft', 'list', 'ruleset']);
    expect(stdout.trim()).toBe('');
  });
});
