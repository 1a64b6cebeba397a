import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { ProxyHealth } from '../health/proxy-health.js';
import { createCoreMetrics } from '../metrics/core-metrics.js';
import { serviceKey, type IPFamily, type ServiceKey } from '../model/types.js';
import type { NodePortAddressesReader } from '../nodeview/interface-addresses.js';
import type { NodePortAddresses } from '../nodeview/node-port-addresses.js';
import type { NodeLocalState, StateChanges } from '../nodeview/types.js';
import { ErrorCodes, KpngError } from '../util/errors.js';
import { FakeClock } from '../util/fake-clock.js';
import type { Backend, SyncRequest } from './backend.js';
import {
  aLocalEndpoint,
  aLocalPort,
  aLocalService,
  aNodeLocalState,
  familyEndpoints,
} from '../../test/support/local-state-fixtures.js';
import { RecordingLogger } from './recording-logger.js';
import { SyncLoop, type ChangesPending, type ServiceHealthSync } from './sync-loop.js';

const MIN = 1_000;
const SYNC_PERIOD = 30_000;
const FULL_PERIOD = 3_600_000;
const a = serviceKey('default', 'a');
const b = serviceKey('default', 'b');

/** A backend that records every request, takes `syncMs` of fake time and fails when told to. */
class FakeBackend implements Backend {
  readonly name = 'fake';
  readonly requests: Array<SyncRequest & { readonly at: number }> = [];
  setupCalls = 0;
  failNext = 0;
  /** What the next failures throw (default: a plain Error). */
  failWith: () => Error = () => new Error('nft: transaction failed');
  syncMs = 0;

  constructor(
    private readonly clock: FakeClock,
    readonly families: readonly IPFamily[],
  ) {}

  async setup(): Promise<void> {
    this.setupCalls++;
  }

  async sync(req: SyncRequest): Promise<void> {
    this.requests.push({ ...req, at: this.clock.monotonic() });
    if (this.syncMs > 0) await new Promise<void>((r) => this.clock.setTimeout(r, this.syncMs));
    if (this.failNext > 0) {
      this.failNext--;
      throw this.failWith();
    }
  }

  async cleanup(): Promise<void> {}
}

class RecordingServiceHealth implements ServiceHealthSync {
  readonly calls: Array<{ services: number; proxyHealthy: boolean; updated: ServiceKey[] | 'all' }> = [];
  async sync(
    services: NodeLocalState['services'],
    proxyHealthy: () => boolean,
    _node: NodeLocalState['node'],
    updated?: ReadonlySet<ServiceKey>,
  ): Promise<void> {
    this.calls.push({
      services: services.length,
      proxyHealthy: proxyHealthy(),
      updated: updated === undefined ? 'all' : [...updated],
    });
  }
}

function changed(
  keys: ServiceKey[] | 'all',
  triggerTimes: Array<[ServiceKey, number[]]> = [],
  nodeChanged = false,
): StateChanges {
  return {
    ...(keys === 'all' ? {} : { updatedServices: new Set(keys) }),
    triggerTimes: new Map(triggerTimes),
    nodeChanged,
  };
}

let running: { loop: SyncLoop; clock: FakeClock } | undefined;
afterEach(async () => {
  if (!running) return;
  // stop() waits for a sync in flight, and fake syncs only end when fake time moves: move it (bounded).
  let stopped = false;
  const stopping = running.loop.stop().then(() => (stopped = true));
  for (let i = 0; i < 100 && !stopped; i++) await running.clock.tick(SYNC_PERIOD);
  await stopping;
  running = undefined;
});

async function setup(
  families: readonly IPFamily[] = ['IPv4'],
  minSyncPeriodMs = MIN,
  changesPending?: ChangesPending,
  nodePortAddresses?: NodePortAddressesReader,
) {
  const clock = new FakeClock();
  const registry = new Registry();
  const metrics = createCoreMetrics(registry, { processMetrics: false });
  const health = new ProxyHealth({ clock, syncPeriodMs: SYNC_PERIOD, metrics });
  const backend = new FakeBackend(clock, families);
  const serviceHealth = new RecordingServiceHealth();
  const log = new RecordingLogger();
  const loop = new SyncLoop({
    backend,
    clock,
    minSyncPeriodMs,
    syncPeriodMs: SYNC_PERIOD,
    fullSyncPeriodMs: FULL_PERIOD,
    metrics,
    health,
    serviceHealth,
    log,
    ...(changesPending ? { changesPending } : {}),
    ...(nodePortAddresses ? { nodePortAddresses } : {}),
  });
  running = { loop, clock };
  await loop.start();
  /** The value of one exposed series, e.g. `kpng_sync_failures_total{backend="fake"}`. */
  const series = async (name: string): Promise<number | undefined> => {
    const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(name + ' '));
    return line === undefined ? undefined : Number(line.slice(name.length + 1));
  };
  const summary = () => backend.requests.map((r) => ({ at: r.at, full: r.full, revision: r.revision }));
  return { clock, registry, metrics, health, backend, serviceHealth, log, loop, series, summary };
}

describe('SyncLoop cadence', () => {
  it('sets the backend up and syncs the first state at once, in full', async () => {
    const h = await setup();
    expect(h.backend.setupCalls).toBe(1);
    const state = aNodeLocalState([aLocalService('a')]);
    h.loop.offer(state, changed([a]), 7);
    await h.clock.tick(0);
    expect(h.backend.requests).toHaveLength(1);
    expect(h.backend.requests[0]).toMatchObject({ state, full: true, revision: 7 });
  });

  it('syncs a state offered before start once started, and health sees it pending', async () => {
    const clock = new FakeClock();
    const backend = new FakeBackend(clock, ['IPv4']);
    backend.syncMs = 3 * SYNC_PERIOD;
    const health = new ProxyHealth({ clock, syncPeriodMs: SYNC_PERIOD });
    const metrics = createCoreMetrics(new Registry(), { processMetrics: false });
    const loop = new SyncLoop({
      backend,
      clock,
      minSyncPeriodMs: MIN,
      syncPeriodMs: SYNC_PERIOD,
      fullSyncPeriodMs: FULL_PERIOD,
      metrics,
      health,
      log: new RecordingLogger(),
    });
    running = { loop, clock };
    loop.offer(aNodeLocalState(), changed([a]), 1);
    await clock.tick(0);
    expect(backend.requests).toHaveLength(0);
    await loop.start();
    await clock.tick(2 * SYNC_PERIOD - 1);
    expect(backend.requests.map((r) => r.revision)).toEqual([1]);
    expect(health.isHealthy()).toBe(true);
    await clock.tick(1);
    expect(health.isHealthy()).toBe(false); // start-up reset it, but the offer is still pending
    await clock.tick(SYNC_PERIOD);
    expect(health.isHealthy()).toBe(true);
  });

  it('does nothing before the first state, even on the periodic tick', async () => {
    const h = await setup();
    await h.clock.tick(2 * FULL_PERIOD);
    expect(h.backend.requests).toHaveLength(0);
  });

  it('coalesces states offered during a sync into one partial sync of the latest state', async () => {
    const h = await setup();
    h.backend.syncMs = 500;
    h.loop.offer(aNodeLocalState(), changed([a]), 1);
    await h.clock.tick(100);
    const latest = aNodeLocalState([aLocalService('a'), aLocalService('b')]);
    h.loop.offer(aNodeLocalState([aLocalService('a')]), changed([a], [[a, [10]]]), 2);
    h.loop.offer(
      latest,
      changed(
        [b],
        [
          [a, [11]],
          [b, [12]],
        ],
      ),
      3,
    );
    await h.clock.tick(10_000);
    expect(h.summary()).toEqual([
      { at: 0, full: true, revision: 1 },
      { at: 500, full: false, revision: 3 }, // the burst's second sync: at once, not after minSyncPeriod
    ]);
    const second = h.backend.requests[1]!;
    expect(second.state).toBe(latest);
    expect([...second.changes.updatedServices!].sort()).toEqual([a, b]);
    expect(Object.fromEntries(second.changes.triggerTimes)).toEqual({ [a]: [10, 11], [b]: [12] });
  });

  it('runs a lone change at once when minSyncPeriod has passed', async () => {
    const h = await setup();
    h.loop.offer(aNodeLocalState(), changed([a]), 1);
    await h.clock.tick(5_000);
    h.loop.offer(aNodeLocalState(), changed([b]), 2);
    await h.clock.tick(0);
    expect(h.summary()).toEqual([
      { at: 0, full: true, revision: 1 },
      { at: 5_000, full: false, revision: 2 },
    ]);
  });

  it.each([
    { name: 'the node changed', changes: changed([], [], true) },
    { name: 'every service is reported changed', changes: changed('all') },
  ])('syncs in full when $name', async ({ changes }) => {
    const h = await setup();
    h.loop.offer(aNodeLocalState(), changed([a]), 1);
    await h.clock.tick(MIN);
    h.loop.offer(aNodeLocalState(), changes, 2);
    await h.clock.tick(0);
    expect(h.summary().map((r) => r.full)).toEqual([true, true]);
  });

  it('syncs in full once fullSyncPeriod has passed since the last full sync, and periodically', async () => {
    const h = await setup();
    h.loop.offer(aNodeLocalState(), changed([a]), 1);
    await h.clock.tick(FULL_PERIOD - 10_000);
    h.loop.offer(aNodeLocalState(), changed([a]), 2); // partial, restarts the periodic timer
    await h.clock.tick(10_000);
    h.loop.offer(aNodeLocalState(), changed([a]), 3); // a full period since the last full sync
    await h.clock.tick(FULL_PERIOD); // nothing offered: the periodic run
    expect(h.summary()).toEqual([
      { at: 0, full: true, revision: 1 },
      { at: FULL_PERIOD - 10_000, full: false, revision: 2 },
      { at: FULL_PERIOD, full: true, revision: 3 },
      { at: 2 * FULL_PERIOD, full: true, revision: 3 },
    ]);
  });

  it('stops syncing after stop', async () => {
    const h = await setup();
    await h.loop.stop();
    h.loop.offer(aNodeLocalState(), changed([a]), 1);
    await h.clock.tick(FULL_PERIOD);
    expect(h.backend.requests).toHaveLength(0);
  });
});

describe('SyncLoop failures', () => {
  it('observes the duration of a failed sync too, as upstream, but not the last-sync time', async () => {
    const h = await setup();
    h.backend.syncMs = 30;
    h.backend.failNext = 1;
    h.loop.offer(aNodeLocalState(), changed([a]), 1);
    await h.clock.tick(30);
    const l = '{ip_family="IPv4"}';
    expect(await h.series(`kubeproxy_sync_proxy_rules_duration_seconds_count${l}`)).toBe(1);
    expect(await h.series(`kubeproxy_sync_proxy_rules_duration_seconds_sum${l}`)).toBeCloseTo(0.03, 9);
    expect(await h.series(`kubeproxy_sync_full_proxy_rules_duration_seconds_count${l}`)).toBe(1);
    expect(await h.series(`kubeproxy_sync_proxy_rules_last_timestamp_seconds${l}`)).toBeUndefined();
  });

  it('counts and logs a failure and retries in full after syncPeriod with the changes kept', async () => {
    const h = await setup();
    h.loop.offer(aNodeLocalState(), changed([a]), 1);
    await h.clock.tick(MIN);
    h.backend.failNext = 1;
    h.loop.offer(aNodeLocalState(), changed([a], [[a, [h.clock.now() - 2_000]]]), 2);
    await h.clock.tick(0);
    expect(await h.series('kpng_sync_failures_total{backend="fake"}')).toBe(1);
    expect(h.log.at('error').map((r) => r.msg)).toEqual(['sync failed; retrying with a full sync']);
    expect(h.log.at('error')[0]!.fields).toMatchObject({ revision: 2, retryInMs: SYNC_PERIOD });

    await h.clock.tick(SYNC_PERIOD);
    expect(h.summary()).toEqual([
      { at: 0, full: true, revision: 1 },
      { at: MIN, full: false, revision: 2 },
      { at: MIN + SYNC_PERIOD, full: true, revision: 2 },
    ]);
    const retry = h.backend.requests[2]!;
    expect([...retry.changes.updatedServices!]).toEqual([a]);
    expect(retry.changes.triggerTimes.get(a)).toHaveLength(1);
  });

  it('counts a sync whose kernel write timed out as a failure and as a write timeout, and retries it in full', async () => {
    const h = await setup();
    h.loop.offer(aNodeLocalState(), changed([a]), 1);
    await h.clock.tick(MIN);
    expect(await h.series('kpng_sync_write_timeouts_total{backend="fake"}')).toBeUndefined();
    h.backend.failNext = 2;
    h.backend.failWith = () => new KpngError(ErrorCodes.WriteTimedOut, 'nft -f did not finish within 60000 ms');
    h.loop.offer(aNodeLocalState(), changed([a]), 2);
    await h.clock.tick(0);
    h.backend.failWith = () => new KpngError(ErrorCodes.SyncFailed, 'nft: transaction failed');
    await h.clock.tick(SYNC_PERIOD);
    expect(await h.series('kpng_sync_failures_total{backend="fake"}')).toBe(2);
    expect(await h.series('kpng_sync_write_timeouts_total{backend="fake"}')).toBe(1);
    await h.clock.tick(SYNC_PERIOD);
    expect(h.summary().slice(1)).toEqual([
      { at: MIN, full: false, revision: 2 },
      { at: MIN + SYNC_PERIOD, full: true, revision: 2 },
      { at: MIN + 2 * SYNC_PERIOD, full: true, revision: 2 },
    ]);
  });

  it('keeps trigger times of a failed sync and observes them, retry delay included, on success', async () => {
    const h = await setup();
    h.backend.failNext = 1;
    h.loop.offer(aNodeLocalState(), changed([a], [[a, [h.clock.now() - 2_000]]]), 1);
    await h.clock.tick(0);
    expect(await h.series('kubeproxy_network_programming_duration_seconds_count{ip_family="IPv4"}')).toBeUndefined();
    await h.clock.tick(SYNC_PERIOD);
    expect(await h.series('kubeproxy_network_programming_duration_seconds_count{ip_family="IPv4"}')).toBe(1);
    expect(await h.series('kubeproxy_network_programming_duration_seconds_sum{ip_family="IPv4"}')).toBe(32);
  });

  it('merges changes offered after a failure into the next attempt, which is full', async () => {
    const h = await setup();
    h.loop.offer(aNodeLocalState(), changed([a]), 1);
    await h.clock.tick(MIN);
    h.backend.failNext = 1;
    h.loop.offer(aNodeLocalState(), changed([a]), 2);
    await h.clock.tick(5_000);
    h.loop.offer(aNodeLocalState(), changed([b]), 3);
    await h.clock.tick(0);
    const third = h.backend.requests[2]!;
    expect({ full: third.full, revision: third.revision, at: third.at }).toEqual({
      full: true,
      revision: 3,
      at: MIN + 5_000,
    });
    expect([...third.changes.updatedServices!].sort()).toEqual([a, b]);
  });
});

describe('SyncLoop nodePortAddresses', () => {
  it('reads them before each sync into the synced node; a change makes the sync full; a failed read fails the sync', async () => {
    const answers: (NodePortAddresses | Error)[] = [
      { IPv4: ['192.0.2.10'], IPv6: 'all' },
      { IPv4: ['192.0.2.10'], IPv6: 'all' },
      { IPv4: ['192.0.2.10', '192.0.2.11'], IPv6: 'all' },
      new Error('ip -j addr exited with 1'),
    ];
    const read: NodePortAddressesReader = () => {
      const next = answers.shift() ?? { IPv4: ['192.0.2.11'], IPv6: 'all' };
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    };
    const h = await setup(['IPv4'], MIN, undefined, read);
    const offered = aNodeLocalState();
    h.loop.offer(offered, changed([a]), 1);
    await h.clock.tick(MIN);
    h.loop.offer(aNodeLocalState(), changed([a]), 2); // same addresses: partial
    await h.clock.tick(MIN);
    h.loop.offer(aNodeLocalState(), changed([a]), 3); // an address appeared: full
    await h.clock.tick(MIN);
    h.loop.offer(aNodeLocalState(), changed([a]), 4); // the read fails: no sync, a failure, a full retry
    await h.clock.tick(0);
    expect(await h.series('kpng_sync_failures_total{backend="fake"}')).toBe(1);
    await h.clock.tick(SYNC_PERIOD);
    expect(h.summary()).toEqual([
      { at: 0, full: true, revision: 1 },
      { at: MIN, full: false, revision: 2 },
      { at: 2 * MIN, full: true, revision: 3 },
      { at: 3 * MIN + SYNC_PERIOD, full: true, revision: 4 },
    ]);
    expect(h.backend.requests.map((r) => r.state.node.nodePortAddresses)).toEqual([
      { IPv4: ['192.0.2.10'], IPv6: 'all' },
      { IPv4: ['192.0.2.10'], IPv6: 'all' },
      { IPv4: ['192.0.2.10', '192.0.2.11'], IPv6: 'all' },
      { IPv4: ['192.0.2.11'], IPv6: 'all' },
    ]);
    expect(h.backend.requests[0]!.state.services).toBe(offered.services);
    expect(offered.node.nodePortAddresses).toBeUndefined(); // the offered state is not changed
  });
});

describe('SyncLoop metrics and health', () => {
  it('observes sync durations per family, in the full or partial variant, and the last sync time', async () => {
    const h = await setup(['IPv4', 'IPv6']);
    h.backend.syncMs = 40;
    h.loop.offer(aNodeLocalState(), changed([a]), 1);
    await h.clock.tick(MIN + 40);
    h.loop.offer(aNodeLocalState(), changed([a]), 2);
    await h.clock.tick(40);
    for (const family of ['IPv4', 'IPv6']) {
      const l = `{ip_family="${family}"}`;
      expect(await h.series(`kubeproxy_sync_proxy_rules_duration_seconds_count${l}`)).toBe(2);
      expect(await h.series(`kubeproxy_sync_proxy_rules_duration_seconds_sum${l}`)).toBeCloseTo(0.08, 9);
      expect(await h.series(`kubeproxy_sync_full_proxy_rules_duration_seconds_count${l}`)).toBe(1);
      expect(await h.series(`kubeproxy_sync_partial_proxy_rules_duration_seconds_count${l}`)).toBe(1);
      expect(await h.series(`kubeproxy_sync_proxy_rules_last_timestamp_seconds${l}`)).toBe(h.clock.now() / 1000);
    }
  });

  it('sets the last queued time at start and on every offer', async () => {
    const h = await setup();
    const startedAt = h.clock.now() / 1000;
    expect(await h.series('kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds{ip_family="IPv4"}')).toBe(
      startedAt,
    );
    await h.clock.tick(7_000);
    h.loop.offer(aNodeLocalState(), changed([a]), 1);
    expect(await h.series('kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds{ip_family="IPv4"}')).toBe(
      startedAt + 7,
    );
  });

  it('sets the no-local-endpoints gauges from the synced state', async () => {
    const h = await setup();
    const dropped = aLocalService('a', {
      internalPolicyLocal: true,
      externalPolicyLocal: true,
      ports: [aLocalPort('http', { IPv4: familyEndpoints([aLocalEndpoint('198.18.1.1', false)], true) }, a)],
    });
    h.loop.offer(aNodeLocalState([dropped]), changed([a]), 1);
    await h.clock.tick(0);
    expect(
      await h.series('kubeproxy_sync_proxy_rules_no_local_endpoints_total{traffic_policy="internal",ip_family="IPv4"}'),
    ).toBe(1);
    expect(
      await h.series('kubeproxy_sync_proxy_rules_no_local_endpoints_total{traffic_policy="external",ip_family="IPv4"}'),
    ).toBe(1);
  });

  it('keeps the no-local-endpoints gauges through partial syncs: a change, a removal and a re-add', async () => {
    const h = await setup();
    const port = (isLocal: boolean) =>
      aLocalPort('http', { IPv4: familyEndpoints([aLocalEndpoint('198.18.1.1', isLocal)], true) }, a);
    const service = (isLocal: boolean) =>
      aLocalService('a', { internalPolicyLocal: true, externalPolicyLocal: true, ports: [port(isLocal)] });
    const other = aLocalService('b', {
      internalPolicyLocal: true,
      ports: [aLocalPort('http', { IPv4: familyEndpoints([aLocalEndpoint('198.18.1.2', false)], true) }, b)],
    });
    const gauges = async () => [
      await h.series('kubeproxy_sync_proxy_rules_no_local_endpoints_total{traffic_policy="internal",ip_family="IPv4"}'),
      await h.series('kubeproxy_sync_proxy_rules_no_local_endpoints_total{traffic_policy="external",ip_family="IPv4"}'),
    ];
    const steps: [NodeLocalState['services'], number[]][] = [
      [
        [service(false), other],
        [2, 1],
      ],
      [
        [service(true), other],
        [1, 0],
      ],
      [[other], [1, 0]],
      [
        [service(false), other],
        [2, 1],
      ],
    ];
    for (const [i, [services, expected]] of steps.entries()) {
      h.loop.offer(aNodeLocalState(services), changed([a]), i + 1);
      await h.clock.tick(MIN);
      expect(await gauges()).toEqual(expected);
    }
    expect(h.backend.requests.map((r) => r.full)).toEqual([true, false, false, false]);
  });

  it('observes one programming latency sample per trigger time, only after success', async () => {
    const h = await setup();
    h.backend.syncMs = 250;
    const now = h.clock.now();
    h.loop.offer(
      aNodeLocalState(),
      changed(
        [a, b],
        [
          [a, [now - 1_000, now - 500]],
          [b, [now]],
        ],
      ),
      1,
    );
    await h.clock.tick(0);
    expect(await h.series('kubeproxy_network_programming_duration_seconds_count{ip_family="IPv4"}')).toBeUndefined();
    await h.clock.tick(250);
    expect(await h.series('kubeproxy_network_programming_duration_seconds_count{ip_family="IPv4"}')).toBe(3);
    expect(await h.series('kubeproxy_network_programming_duration_seconds_sum{ip_family="IPv4"}')).toBeCloseTo(
      1.25 + 0.75 + 0.25,
      9,
    );
    expect(await h.series('kubeproxy_network_programming_duration_seconds_bucket{le="0.25",ip_family="IPv4"}')).toBe(1);
  });

  it('observes programming-from-event latency per change, per family the Service has, from when the change was offered', async () => {
    const h = await setup(['IPv4', 'IPv6']);
    h.backend.syncMs = 30;
    const v4 = aLocalService('a');
    const dual = aLocalService('b', {
      families: {
        ...v4.families,
        IPv6: { clusterIP: '2001:db8::1', externalIPs: [], loadBalancerIPs: [], loadBalancerSourceRanges: [] },
      },
    });
    h.loop.offer(aNodeLocalState([v4, dual]), changed('all'), 1); // the first, full state: no change to time
    await h.clock.tick(30);
    await h.clock.tick(MIN);
    h.loop.offer(aNodeLocalState([v4, dual]), changed([a]), 2); // IPv4-only Service
    await h.clock.tick(0);
    const l = (f: string) => `{ip_family="${f}"}`;
    expect(await h.series(`kpng_network_programming_from_event_seconds_count${l('IPv4')}`)).toBeUndefined(); // not yet applied
    await h.clock.tick(30);
    expect(await h.series(`kpng_network_programming_from_event_seconds_count${l('IPv4')}`)).toBe(1);
    expect(await h.series(`kpng_network_programming_from_event_seconds_sum${l('IPv4')}`)).toBeCloseTo(0.03, 9);
    expect(await h.series(`kpng_network_programming_from_event_seconds_count${l('IPv6')}`)).toBeUndefined();

    // Two changes of the dual-stack Service coalesced into one sync: two samples in each family.
    await h.clock.tick(MIN);
    h.loop.offer(aNodeLocalState([v4, dual]), changed([b]), 3);
    await h.clock.tick(0); // syncing revision 3 (30 ms)
    await h.clock.tick(10);
    h.loop.offer(aNodeLocalState([v4]), changed([b]), 4); // b removed: still counted in its families
    await h.clock.tick(20 + MIN + 30);
    expect(await h.series(`kpng_network_programming_from_event_seconds_count${l('IPv6')}`)).toBe(2);
    expect(await h.series(`kpng_network_programming_from_event_seconds_count${l('IPv4')}`)).toBe(3);
    // Revision 3: offered at sync start, applied 30 ms later; revision 4: offered 10 ms in, waited
    // for the first sync to end (20 ms; the runner's burst lets it run at once), then its own 30 ms.
    expect(await h.series(`kpng_network_programming_from_event_seconds_sum${l('IPv6')}`)).toBeCloseTo(
      0.03 + (20 + 30) / 1000,
      9,
    );
    expect(await h.series(`kpng_network_programming_from_event_seconds_bucket{le="0.03",ip_family="IPv6"}`)).toBe(1);
  });

  it('keeps the offer times of a failed sync, so the sample includes the retry', async () => {
    const h = await setup();
    h.loop.offer(aNodeLocalState([aLocalService('a')]), changed('all'), 1);
    await h.clock.tick(MIN);
    h.backend.failNext = 1;
    h.loop.offer(aNodeLocalState([aLocalService('a')]), changed([a]), 2);
    await h.clock.tick(0);
    expect(await h.series('kpng_network_programming_from_event_seconds_count{ip_family="IPv4"}')).toBeUndefined();
    await h.clock.tick(SYNC_PERIOD);
    expect(await h.series('kpng_network_programming_from_event_seconds_count{ip_family="IPv4"}')).toBe(1);
    expect(await h.series('kpng_network_programming_from_event_seconds_sum{ip_family="IPv4"}')).toBe(
      SYNC_PERIOD / 1000,
    );
  });

  it('turns unhealthy while a sync hangs past 2 x syncPeriod, and healthy again once it lands', async () => {
    const h = await setup();
    h.backend.syncMs = 100_000;
    h.loop.offer(aNodeLocalState(), changed([a]), 1);
    await h.clock.tick(2 * SYNC_PERIOD - 1);
    expect(h.health.isHealthy()).toBe(true);
    await h.clock.tick(1);
    expect(h.health.isHealthy()).toBe(false);
    await h.clock.tick(100_000);
    expect(h.health.isHealthy()).toBe(true);
  });

  it('a state offered during a sync stays pending after that sync: failing syncs after it turn unhealthy', async () => {
    const h = await setup();
    h.backend.syncMs = 5_000;
    h.loop.offer(aNodeLocalState(), changed([a]), 1);
    await h.clock.tick(1_000); // the first sync runs (until 5,000)
    h.loop.offer(aNodeLocalState(), changed([b]), 2); // offered at 1,000, not in the running sync
    h.backend.syncMs = 0;
    const sync = h.backend.sync.bind(h.backend);
    h.backend.sync = async (req) => {
      await sync(req);
      if (req.revision >= 2) throw new Error('nft: transaction failed'); // every later sync fails
    };
    await h.clock.tick(4_000); // the first sync lands: revision 2 still waits, since 1,000
    expect(h.health.isHealthy()).toBe(true);
    await h.clock.tick(1_000 + 2 * SYNC_PERIOD - 5_000 - 1);
    expect(h.health.isHealthy()).toBe(true);
    await h.clock.tick(1); // 2 x syncPeriod after revision 2 was offered (at 1,000)
    expect(h.health.isHealthy()).toBe(false);
    expect(h.backend.requests.at(-1)?.revision).toBe(2);
  });

  it('tells changesPending when a sync calls the backend, and when that sync succeeded (only then)', async () => {
    const events: string[] = [];
    let n = 0;
    const h = await setup(['IPv4'], MIN, {
      syncStarting: () => {
        const sync = ++n;
        events.push(`start ${sync}`);
        return () => events.push(`applied ${sync}`);
      },
    });
    h.backend.failNext = 1;
    h.loop.offer(aNodeLocalState([aLocalService('a')]), changed([a]), 1);
    await h.clock.tick(0);
    expect(events).toEqual(['start 1']);
    await h.clock.tick(SYNC_PERIOD);
    expect(events).toEqual(['start 1', 'start 2', 'applied 2']);
    expect(h.backend.requests).toHaveLength(2);
  });

  it('reconciles service health ports after each successful sync only', async () => {
    const h = await setup();
    h.backend.failNext = 1;
    h.loop.offer(aNodeLocalState([aLocalService('a'), aLocalService('b')]), changed([a, b]), 1);
    await h.clock.tick(0);
    expect(h.serviceHealth.calls).toEqual([]);
    await h.clock.tick(SYNC_PERIOD);
    expect(h.serviceHealth.calls).toEqual([{ services: 2, proxyHealthy: true, updated: 'all' }]);
    // A partial sync names the Services that changed, for an incremental reconcile.
    h.loop.offer(aNodeLocalState([aLocalService('a'), aLocalService('b')]), changed([b]), 2);
    await h.clock.tick(MIN);
    expect(h.serviceHealth.calls.at(-1)).toEqual({ services: 2, proxyHealthy: true, updated: [b] });
  });

  it('logs one info line per successful sync with counts and duration', async () => {
    const h = await setup();
    h.backend.syncMs = 12;
    h.loop.offer(aNodeLocalState([aLocalService('a')]), changed([a]), 4);
    await h.clock.tick(12);
    expect(h.log.at('info').map((r) => r.fields)).toEqual([
      { revision: 4, full: true, services: 1, changedServices: 1, durationMs: 12 },
    ]);
  });
});

describe('SyncLoop families: only those the node has', () => {
  const onNode = (addresses: string[], services: ReturnType<typeof aLocalService>[] = []): NodeLocalState => {
    const s = aNodeLocalState(services);
    return { ...s, node: { ...s.node, addresses } };
  };
  const count = (family: IPFamily) => `kubeproxy_network_programming_duration_seconds_count{ip_family="${family}"}`;
  const syncs = (family: IPFamily) => `kubeproxy_sync_proxy_rules_duration_seconds_count{ip_family="${family}"}`;

  it('a single-stack IPv4 node observes each trigger time once: 20 changes, 20 samples, no IPv6 series', async () => {
    const h = await setup(['IPv4', 'IPv6']);
    for (let i = 0; i < 20; i++) {
      h.loop.offer(onNode(['198.18.0.10'], [aLocalService('a')]), changed([a], [[a, [h.clock.now() - 100]]]), i + 1);
      await h.clock.tick(MIN);
    }
    expect(await h.series(count('IPv4'))).toBe(20);
    expect(await h.series(count('IPv6'))).toBeUndefined();
    expect(await h.series(syncs('IPv4'))).toBe(20);
    expect(await h.series(syncs('IPv6'))).toBeUndefined();
  });

  it("asks the backend to program the node's families only (all of the backend's until the Node is known)", async () => {
    const h = await setup(['IPv4', 'IPv6']);
    h.loop.offer(aNodeLocalState(), changed([a]), 1);
    await h.clock.tick(MIN);
    h.loop.offer(onNode(['198.18.0.10']), changed([a]), 2);
    await h.clock.tick(MIN);
    h.loop.offer(onNode(['198.18.0.10', '2001:db8::10']), changed([a]), 3);
    await h.clock.tick(MIN);
    expect(h.backend.requests.map((r) => [r.revision, r.families])).toEqual([
      [1, ['IPv4', 'IPv6']],
      [2, ['IPv4']],
      [3, ['IPv4', 'IPv6']],
    ]);
  });

  it('a dual-stack node observes a single-stack Service in its family only, a dual-stack one in both', async () => {
    const h = await setup(['IPv4', 'IPv6']);
    const fam = { externalIPs: [], loadBalancerIPs: [], loadBalancerSourceRanges: [] };
    const dual = aLocalService('b', {
      families: { IPv4: { clusterIP: '198.19.0.2', ...fam }, IPv6: { clusterIP: '2001:db8::2', ...fam } },
    });
    const t = h.clock.now() - 100;
    h.loop.offer(
      onNode(['198.18.0.10', '2001:db8::10'], [aLocalService('a'), dual]),
      changed(
        [a, b],
        [
          [a, [t]],
          [b, [t]],
        ],
      ),
      1,
    );
    await h.clock.tick(0);
    expect(await h.series(count('IPv4'))).toBe(2);
    expect(await h.series(count('IPv6'))).toBe(1);
    expect(await h.series(syncs('IPv6'))).toBe(1);
  });

  it('health stops waiting for a family the node turned out not to have', async () => {
    const h = await setup(['IPv4', 'IPv6']);
    h.backend.syncMs = 3 * SYNC_PERIOD; // the first sync, still before the Node was known, hangs
    h.loop.offer(aNodeLocalState(), changed([a]), 1);
    await h.clock.tick(0);
    h.backend.syncMs = 0;
    h.loop.offer(onNode(['198.18.0.10']), changed([a]), 2);
    await h.clock.tick(3 * SYNC_PERIOD + MIN);
    expect(h.health.isHealthy()).toBe(true);
    expect(await h.series(syncs('IPv6'))).toBeUndefined(); // the hung sync landed after the Node was known
  });
});
