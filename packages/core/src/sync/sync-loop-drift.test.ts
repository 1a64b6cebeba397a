import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { ProxyHealth } from '../health/proxy-health.js';
import { createCoreMetrics } from '../metrics/core-metrics.js';
import { serviceKey, type IPFamily } from '../model/types.js';
import { FakeClock } from '../util/fake-clock.js';
import type { Backend, DriftKinds, SyncOutcome, SyncRequest } from './backend.js';
import { aLocalService, aNodeLocalState } from '../../test/support/local-state-fixtures.js';
import { RecordingLogger } from './recording-logger.js';
import { SyncLoop } from './sync-loop.js';

const SYNC_PERIOD = 5_000;
const FULL_PERIOD = 3_600_000;
const a = serviceKey('default', 'a');

/** A backend whose kernel another program can "change": `check` reports it, the next full sync repairs it. */
class DriftingBackend implements Backend {
  readonly name = 'fake';
  readonly families: readonly IPFamily[] = ['IPv4'];
  readonly requests: Array<{ readonly at: number; readonly full: boolean; readonly revision: number }> = [];
  readonly checks: number[] = [];
  /** What the kernel lost behind our back; `check` finds it, a full sync repairs it. */
  drifted: string[] = [];
  /** The next check throws this. */
  checkError: Error | undefined;
  /** Each check takes this long (fake time). */
  checkMs = 0;
  #found: string[] = [];

  constructor(private readonly clock: FakeClock) {}

  async check(): Promise<DriftKinds> {
    this.checks.push(this.clock.monotonic());
    if (this.checkMs > 0) await new Promise<void>((r) => this.clock.setTimeout(r, this.checkMs));
    if (this.checkError) throw this.checkError;
    this.#found = [...this.drifted];
    return this.#found;
  }

  async sync(req: SyncRequest): Promise<SyncOutcome> {
    this.requests.push({ at: this.clock.monotonic(), full: req.full, revision: req.revision });
    if (!req.full) return {};
    const repaired = this.#found;
    this.#found = [];
    this.drifted = [];
    return { repaired };
  }

  async cleanup(): Promise<void> {}
}

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

async function setup() {
  const clock = new FakeClock();
  const registry = new Registry();
  const metrics = createCoreMetrics(registry, { processMetrics: false });
  const health = new ProxyHealth({ clock, syncPeriodMs: SYNC_PERIOD, metrics });
  const backend = new DriftingBackend(clock);
  const log = new RecordingLogger();
  const loop = new SyncLoop({
    backend,
    clock,
    minSyncPeriodMs: 1_000,
    syncPeriodMs: SYNC_PERIOD,
    fullSyncPeriodMs: FULL_PERIOD,
    metrics,
    health,
    log,
  });
  stop = () => loop.stop();
  await loop.start();
  const repairs = async (kind: string): Promise<number | undefined> => {
    const name = `kpng_sync_drift_repairs_total{backend="fake",kind="${kind}"}`;
    const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(name + ' '));
    return line === undefined ? undefined : Number(line.slice(name.length + 1));
  };
  return { clock, backend, loop, log, repairs, health };
}

const firstState = { updatedServices: new Set([a]), triggerTimes: new Map(), nodeChanged: false };

describe('SyncLoop drift checks (every syncPeriod)', () => {
  it('does not check before the first successful sync: the kernel holds nothing of ours yet', async () => {
    const h = await setup();
    await h.clock.tick(3 * SYNC_PERIOD);
    expect(h.backend.checks).toEqual([]);
  });

  it('checks every syncPeriod and, finding nothing, does not sync', async () => {
    const h = await setup();
    h.loop.offer(aNodeLocalState([aLocalService('a')]), firstState, 1);
    await h.clock.tick(0);
    await h.clock.tick(3 * SYNC_PERIOD);
    expect(h.backend.checks).toEqual([SYNC_PERIOD, 2 * SYNC_PERIOD, 3 * SYNC_PERIOD]);
    expect(h.backend.requests).toEqual([{ at: 0, full: true, revision: 1 }]);
    expect(await h.repairs('table')).toBeUndefined();
  });

  it('repairs drift with a full sync at once, without any API change, and counts it per kind', async () => {
    const h = await setup();
    h.loop.offer(aNodeLocalState([aLocalService('a')]), firstState, 1);
    await h.clock.tick(0);
    await h.clock.tick(SYNC_PERIOD + 100);
    h.backend.drifted = ['table'];
    await h.clock.tick(SYNC_PERIOD);
    expect(h.backend.requests).toEqual([
      { at: 0, full: true, revision: 1 },
      { at: 2 * SYNC_PERIOD, full: true, revision: 1 },
    ]);
    expect(await h.repairs('table')).toBe(1);
    expect(h.log.records.some((r) => r.level === 'warn' && /drifted/.test(r.msg))).toBe(true);
    await h.clock.tick(SYNC_PERIOD); // repaired: the next check finds nothing
    expect(h.backend.requests).toHaveLength(2);
    expect(await h.repairs('table')).toBe(1);
  });

  it('logs a failing check, treats it as nothing found and keeps checking', async () => {
    const h = await setup();
    h.loop.offer(aNodeLocalState([aLocalService('a')]), firstState, 1);
    await h.clock.tick(0);
    h.backend.checkError = new Error('nft: not found in PATH');
    await h.clock.tick(SYNC_PERIOD);
    expect(h.backend.requests).toHaveLength(1);
    expect(h.log.records.some((r) => r.level === 'warn' && /drift check failed/.test(r.msg))).toBe(true);
    h.backend.checkError = undefined;
    h.backend.drifted = ['chain'];
    await h.clock.tick(SYNC_PERIOD);
    expect(await h.repairs('chain')).toBe(1);
    expect(h.health.isHealthy()).toBe(true);
  });

  it('a state offered while a check runs is the one synced (not the one current when the check began)', async () => {
    const h = await setup();
    h.loop.offer(aNodeLocalState([aLocalService('a')]), firstState, 1);
    await h.clock.tick(0);
    h.backend.checkMs = 500;
    await h.clock.tick(SYNC_PERIOD + 100); // the check is running
    h.loop.offer(aNodeLocalState([aLocalService('a')]), firstState, 2);
    await h.clock.tick(1_000);
    // Revision 2's changes are synced with revision 2's state (then the offer's own, now empty, run).
    expect(h.backend.requests.map((r) => r.revision)).toEqual([1, 2, 2]);
  });

  it('counts drift that a sync found by itself (e.g. a full resync reading the kernel)', async () => {
    const h = await setup();
    h.loop.offer(aNodeLocalState([aLocalService('a')]), firstState, 1);
    await h.clock.tick(0);
    // The backend found drift on its own at a full sync: it reports it without any check.
    h.backend.drifted = [];
    const sync = h.backend.sync.bind(h.backend);
    h.backend.sync = async (req) => ({ ...(await sync(req)), repaired: ['element'] });
    h.loop.offer(aNodeLocalState([aLocalService('a')]), { ...firstState, nodeChanged: true }, 2);
    await h.clock.tick(1_000);
    expect(await h.repairs('element')).toBe(1);
  });
});
