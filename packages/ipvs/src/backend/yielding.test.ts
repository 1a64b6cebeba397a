import type { NodeLocalState, SyncRequest } from '@kpng/core';
import { allFeatures, clusterIPs, type EndpointFixture, nodeState, on, type ServiceFixture } from '@kpng/core/testing';
import { describe, expect, it } from 'vitest';
import { backendRig } from '../../test/support/backend-rig.js';

const request = (state: NodeLocalState, full: boolean, revision: number): SyncRequest => ({
  state,
  changes: { triggerTimes: new Map(), nodeChanged: false },
  full,
  revision,
});
/** `allFeatures` plus enough plain Services that every loop of a sync runs past the budget's clock checks. */
const services = (endpoints: readonly EndpointFixture[], count = 40): ServiceFixture[] => [
  ...allFeatures(),
  ...Array.from({ length: count }, (_, i) => ({ name: `many-${i}`, clusterIPs: clusterIPs(100 + i), endpoints })),
];

/** `turnBudgetMs: 0` yields at every clock check, `Infinity` never. */
const rig = (turnBudgetMs: number) => backendRig({ turnBudgetMs });

/** Runs `sync` and tells whether an immediate scheduled just before it ran before the sync resolved. */
async function yieldedDuring(sync: Promise<unknown>): Promise<boolean> {
  let ran = false;
  setImmediate(() => (ran = true));
  await sync;
  return ran;
}

// Sequences of syncs: full, partial with added, removed and draining real servers, a removed
// Service, a no-change full resync.
const SEQUENCES: readonly (readonly [string, readonly (readonly [NodeLocalState, boolean])[]])[] = [
  ['one full sync', [[nodeState(services(on('a', 'b', 'c'))), true]]],
  [
    'full, then partials that add, drain and remove real servers and Services, then a full resync',
    [
      [nodeState(services(on('a', 'b'))), true],
      [nodeState(services(on('a', 'b', 'c'))), false],
      [nodeState(services(on('a'), 30)), false],
      [nodeState(services(on('a'), 30)), true],
    ],
  ],
];

describe('IpvsBackend gives the event loop turns during a sync (FakeIpvs, FakeNft, fake ip/sysctl)', () => {
  it.each(SEQUENCES)('%s: yields, and programs exactly what an unyielding sync programs', async (_name, steps) => {
    const yielding = await rig(0);
    const straight = await rig(Number.POSITIVE_INFINITY);
    let revision = 1;
    for (const [state, full] of steps) {
      expect(await yieldedDuring(yielding.backend.sync(request(state, full, revision)))).toBe(true);
      expect(await yieldedDuring(straight.backend.sync(request(state, full, revision)))).toBe(false);
      expect(yielding.snapshot()).toEqual(straight.snapshot());
      revision++;
    }
  });

  it('syncs stay serialised while they yield: overlapping syncs apply in order', async () => {
    const yielding = await rig(0);
    const straight = await rig(Number.POSITIVE_INFINITY);
    const first = nodeState(services(on('a', 'b')));
    const second = nodeState(services(on('a', 'c'), 20));
    await Promise.all([
      yielding.backend.sync(request(first, true, 1)),
      yielding.backend.sync(request(second, false, 2)),
      yielding.backend.check(),
    ]);
    await straight.backend.sync(request(first, true, 1));
    await straight.backend.sync(request(second, false, 2));
    expect(yielding.snapshot()).toEqual(straight.snapshot());
  });

  it('cleanup waits for the sync in progress: a yielding sync is never half-undone', async () => {
    const yielding = await rig(0);
    const syncing = yielding.backend.sync(request(nodeState(services(on('a', 'b'))), true, 1));
    // Asked while the sync is between turns; it must run after the sync's last step, not inside it.
    const cleaning = yielding.backend.cleanup();
    await Promise.all([syncing, cleaning]);
    expect(yielding.kernel.listVirtualServers()).toEqual([]);
    expect(yielding.host.link).toBe(false);
  });

  it('a kernel refusal late in a yielding sync fails it; the full retry converges', async () => {
    const yielding = await rig(0);
    const straight = await rig(Number.POSITIVE_INFINITY);
    const before = nodeState(services(on('a', 'b')));
    const after = nodeState(services(on('a', 'c'), 25));
    await yielding.backend.sync(request(before, true, 1));
    // Virtual servers are deleted last, after the others, the nft tables and the addresses.
    yielding.kernel.failNext('deleteVirtualServer', 12);
    await expect(yielding.backend.sync(request(after, false, 2))).rejects.toMatchObject({ code: 'ENOMEM' });
    await yielding.backend.sync(request(after, true, 3));
    await straight.backend.sync(request(after, true, 1));
    // The same table, ruleset and addresses (the calls that got there differ: one failed).
    const { calls: _c, write: _w, ...programmed } = yielding.snapshot();
    const { calls: _sc, write: _sw, ...reference } = straight.snapshot();
    expect(programmed).toEqual(reference);
  });
});
