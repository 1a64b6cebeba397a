import {
  allFeatures,
  clusterIPs,
  externalIPs,
  fullSyncRequest,
  type NodeFixture,
  nodeState,
  on,
  partialSyncRequest,
  type ServiceFixture,
} from '@kpng/core/testing';
import { TurnBudget } from '@kpng/kit';
import { describe, expect, it } from 'vitest';
import { type RenderCache, renderDesired, renderDesiredYielding } from '../render/desired.js';
import { DEFAULT_IPVS_CONFIG } from '../render/options.js';
import { backendRig } from '../../test/support/backend-rig.js';

type Services = readonly ServiceFixture[];
const base = allFeatures();
const change = (name: string, patch: Partial<ServiceFixture>) => (services: Services) =>
  services.map((s) => (s.name === name ? { ...s, ...patch } : s));
const remove = (name: string) => (services: Services) => services.filter((s) => s.name !== name);
const add = (service: ServiceFixture) => (services: Services) => [...services, service];
const extra: ServiceFixture = {
  name: 'extra',
  clusterIPs: clusterIPs(40),
  externalIPs: externalIPs(41),
  endpoints: on('b'),
};

/** Each step: how the Services change, and which names core would report as updated. */
type Step = readonly [(services: Services) => Services, readonly string[]];
const CASES: readonly (readonly [string, readonly Step[]])[] = [
  [
    'an endpoint added, then removed',
    [
      [change('web', { endpoints: on('a', 'b', 'c') }), ['web']],
      [change('web', { endpoints: on('a') }), ['web']],
    ],
  ],
  [
    'a Service removed, then added back',
    [
      [remove('dns'), ['dns']],
      [add(base[1] as ServiceFixture), ['dns']],
    ],
  ],
  [
    'a new Service, then its ClusterIP moves',
    [
      [add(extra), ['extra']],
      [change('extra', { clusterIPs: clusterIPs(42) }), ['extra']],
    ],
  ],
  ['a NodePort and a port change', [[change('web', { ports: [{ port: 81, nodePort: 30081 }] }), ['web']]]],
  ['LB source ranges dropped', [[change('lb', { sourceRanges: [] }), ['lb']]]],
  [
    'affinity and policy change',
    [
      [change('sticky', { affinity: 30 }), ['sticky']],
      [change('local', { externalLocal: false }), ['local']],
    ],
  ],
  [
    'two Services in one sync, one unchanged in between',
    [
      [change('web', { endpoints: on('b') }), ['web', 'sctp']],
      [(s) => s, []],
    ],
  ],
  [
    'two Services on one address: the later still wins',
    [
      [add({ ...extra, clusterIPs: clusterIPs(10) }), ['extra']],
      [remove('extra'), ['extra']],
    ],
  ],
];

describe('renderDesiredYielding: a partial render from the cache equals a render from scratch', () => {
  it.each(CASES)('%s', async (_name, steps) => {
    const node: NodeFixture = {};
    let services: Services = base;
    let cache: RenderCache = (
      await renderDesiredYielding(nodeState(services, node), DEFAULT_IPVS_CONFIG, undefined, new TurnBudget(0))
    ).cache;
    let revision = 2;
    for (const [apply, updated] of steps) {
      services = apply(services);
      const req = partialSyncRequest(nodeState(services, node), updated, revision++);
      const reuse = { cache, updated: req.changes.updatedServices ?? new Set() };
      const partial = await renderDesiredYielding(req.state, DEFAULT_IPVS_CONFIG, reuse, new TurnBudget(0));
      const scratch = renderDesired(req.state, DEFAULT_IPVS_CONFIG);
      // Same virtual servers in the same order (the order the diff and the nft table follow).
      expect([...partial.desired.virtualServers]).toEqual([...scratch.virtualServers]);
      expect(partial.desired.addresses).toEqual(scratch.addresses);
      // Only the changed Services were rendered again: the others are the cached objects themselves.
      for (const service of req.state.services)
        if (!reuse.updated.has(service.key)) expect(partial.cache.get(service.key)).toBe(cache.get(service.key));
      cache = partial.cache;
    }
  });
});

const rig = () => backendRig();

describe('IpvsBackend: a partial sync re-renders and re-diffs only the changed Services (FakeIpvs, FakeNft, fake ip)', () => {
  it.each(CASES)('%s: programs what a partial sync of every Service programs', async (_name, steps) => {
    const incremental = await rig();
    const everything = await rig();
    let services: Services = base;
    for (const rig of [incremental, everything]) await rig.backend.sync(fullSyncRequest(nodeState(services)));
    let revision = 2;
    for (const [apply, updated] of steps) {
      services = apply(services);
      const req = partialSyncRequest(nodeState(services), updated, revision++);
      await incremental.backend.sync(req);
      // No `updatedServices`: every Service rendered and diffed.
      await everything.backend.sync({
        ...req,
        changes: { triggerTimes: req.changes.triggerTimes, nodeChanged: false },
      });
      expect(incremental.snapshot()).toEqual(everything.snapshot());
    }
  });

  it('a node address change re-renders every Service even when core does not flag the node', async () => {
    const incremental = await rig();
    const everything = await rig();
    const node = (addresses: string[]): NodeFixture => ({ addresses });
    const first = nodeState(base, node(['198.18.255.1']));
    const moved = nodeState(base, node(['198.18.255.2']));
    for (const rig of [incremental, everything]) await rig.backend.sync(fullSyncRequest(first));
    await incremental.backend.sync(partialSyncRequest(moved, [], 2));
    await everything.backend.sync(fullSyncRequest(moved, 2));
    expect(incremental.snapshot().ipvs).toEqual(everything.snapshot().ipvs);
  });
});
