import { FakeApiServer, kubeconfigFor, type LabKubeconfig } from '@kpng/lab';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerKubeWatchMetrics } from '../../metrics/kube-watch.js';
import { GlobalModel } from '../../model/global-model.js';
import type { ModelEvent, NodeName, ObjectKind } from '../../model/types.js';
import { computeNodeLocalState } from '../../nodeview/node-viewer.js';
import { RecordingLogger, type LogRecord } from '../../sync/recording-logger.js';
import type { LogFields, Logger } from '../../util/log.js';
import { eventually } from '../../../test/support/source-sink.js';
import type { ModelSink } from '../source.js';
import { KubeSource } from './kube-source.js';
import { loadKubeConfig } from './load-kubeconfig.js';
import { endpointSlice, node, service } from './testdata/objects.js';

/**
 * Issue 18's case, with the kube source's production retry schedule (no test overrides): the API
 * server goes away, comes back on the same port, and an endpoint changed 100 ms after it answers
 * again must reach the node-local state within a second or so.
 *
 * The outage lasts 5 s by default (`KPNG_APISERVER_OUTAGE_MS=20000` for the issue's 20 s): the
 * unreachable schedule reaches its cap ([400, 800) ms between attempts) after 0.6 s, so any outage
 * past ~1 s exercises the steady state and a longer one only adds test time. That the schedule
 * stays there however long the outage lasts is pinned with a fake clock in
 * `reconnect-rounds.test.ts`.
 */

const OUTAGE_MS = Number(process.env['KPNG_APISERVER_OUTAGE_MS'] ?? 5_000);
const NODE = 'node-a' as NodeName;
const KINDS: readonly ObjectKind[] = ['Service', 'EndpointSlice', 'Node'];

/** A RecordingLogger that also notes when (monotonic ms) each kind's "watch is back" line came. */
class TimedLogger extends RecordingLogger {
  constructor(
    readonly backAt = new Map<string, number>(),
    records: LogRecord[] = [],
    base: LogFields = {},
  ) {
    super(records, base);
  }
  override info(msg: string, fields?: LogFields): void {
    if (msg === 'watch is back') this.backAt.set(String(fields?.['kind']), performance.now());
    super.info(msg, fields);
  }
  override with(fields: LogFields): Logger {
    return new TimedLogger(this.backAt, this.records, fields);
  }
}

describe('kube source across an API server restart (production retry schedule)', () => {
  let server: FakeApiServer;
  let kubeconfig: LabKubeconfig;
  let abort: AbortController;
  let running: Promise<void>;

  beforeEach(async () => {
    server = await FakeApiServer.start();
    kubeconfig = await kubeconfigFor(server);
    abort = new AbortController();
  });
  afterEach(async () => {
    abort.abort();
    await running;
    await kubeconfig.remove();
    await server.close();
  });

  /** The kube source with production settings, into a real model; node-local state on demand. */
  async function startWatching() {
    const model = new GlobalModel(Date.now());
    const batches: (readonly ModelEvent[])[] = [];
    const sink: ModelSink = {
      apply: (events) => {
        batches.push(events);
        model.apply(events);
      },
      synced: (kind) => model.synced(kind),
    };
    const localServices = () => computeNodeLocalState(model, NODE).services;
    const endpoints = (key = 'shop/web') =>
      localServices()
        .find((s) => s.key === key)
        ?.ports[0]?.endpoints.IPv4?.internal.map((e) => e.ip)
        .join();
    const registry = new Registry();
    const logger = new TimedLogger();
    const source = new KubeSource({
      kubeConfig: loadKubeConfig({ kubeconfigPath: kubeconfig.path }),
      nodeName: 'node-a',
      watchMetrics: registerKubeWatchMetrics(registry),
      logger,
      serviceCIDRs: false, // the three kinds this file follows (ServiceCIDRs: kube-source.e2e)
    });
    running = source.run(sink, abort.signal);
    await eventually('synced and watching', () => model.allSynced && server.openWatches() === 3);
    // The server counts a watch as open before the client has read the answer: wait for the client.
    const allBack = () => eventually('every kind watching again', () => logger.backAt.size === KINDS.length);
    return { model, batches, localServices, endpoints, registry, logger, allBack };
  }

  it(
    `applies an endpoint change made 100 ms after a ${OUTAGE_MS / 1000} s outage ends, without relisting`,
    async () => {
      server.create(node('node-a'));
      server.create(service('web'));
      server.create(endpointSlice('web-1', 'web', { addresses: ['198.18.1.5'] }));
      const { endpoints, registry, logger, allBack } = await startWatching();
      expect(endpoints()).toBe('198.18.1.5');

      await server.stop();
      await new Promise((r) => setTimeout(r, OUTAGE_MS));
      // Nothing served was dropped while the server was away.
      expect(endpoints()).toBe('198.18.1.5');
      const mark = server.requestMark;
      await server.restart();
      const answeringAt = performance.now();
      await new Promise((r) => setTimeout(r, 100));
      const changedAt = performance.now();
      server.update(endpointSlice('web-1', 'web', { addresses: ['198.18.1.7'] }));
      await eventually('change in the node-local state', () => endpoints() === '198.18.1.7', 10_000);
      const appliedMs = performance.now() - changedAt;
      await allBack();
      const backAt = KINDS.map((k) => logger.backAt.get(k) ?? NaN);
      const spreadMs = Math.max(...backAt) - Math.min(...backAt);
      console.log(
        JSON.stringify({
          case: 'api-server-restart',
          outageMs: OUTAGE_MS,
          changeAppliedMs: Math.round(appliedMs),
          watchesBackAfterAnswerMs: backAt.map((t) => Math.round(t - answeringAt)),
          watchesBackSpreadMs: Math.round(spreadMs),
        }),
      );

      // The change applied and the watches back are figures only: that the watch is back within one
      // round (< 0.8 s) of the server answering, every kind in the same round, is pinned with a fake
      // clock (reconnect-rounds.test.ts). A wall-clock bound on the spread (200 ms) failed on an idle
      // CI machine at 400 ms.
      // Resumed from the last resourceVersion: no LIST, one watch per kind from where it was.
      expect(server.requests({ verb: 'list', since: mark })).toEqual([]);
      const rewatched = server.requests({ verb: 'watch', since: mark });
      expect(rewatched.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(rewatched.every((r) => Number(r.query['resourceVersion']) > 0)).toBe(true);

      const back = logger.at('info').filter((r) => r.msg === 'watch is back');
      expect(back.map((r) => r.fields['kind']).sort()).toEqual([...KINDS].sort());
      // downMs is read from Date.now (whole ms) and a timer may fire up to 1 ms early on that clock
      // (CI once measured 4999 for the 5000 ms sleep): the outage, give or take the clock's granularity.
      for (const r of back) expect(r.fields['downMs']).toBeGreaterThanOrEqual(OUTAGE_MS - 2);
      // One warning per kind for the outage, not one per attempt.
      expect(logger.at('warn').length).toBeLessThanOrEqual(KINDS.length);
      const text = await registry.metrics();
      for (const kind of KINDS) {
        expect(text).toContain(`kpng_kube_watch_reconnects_total{kind="${kind}"} 1`);
        expect(text).toContain(`kpng_kube_watch_down_seconds{kind="${kind}"} 0`);
      }
    },
    OUTAGE_MS + 30_000,
  );

  it('relists after history was compacted while it was down: the served state stays, only differences are applied', async () => {
    server.create(node('node-a'));
    server.create(service('web'));
    server.create(endpointSlice('web-1', 'web', { addresses: ['198.18.1.5'] }));
    server.create(service('api', { ip: '198.19.0.11' }));
    server.create(endpointSlice('api-1', 'api', { addresses: ['198.18.1.9'] }));
    const { model, batches, localServices, endpoints, allBack } = await startWatching();
    const served: string[][] = [];
    model.onChange(() => served.push(localServices().map((s) => s.key)));
    expect(endpoints('shop/api')).toBe('198.18.1.9');

    await server.stop();
    // Changed and compacted while this node could not see it: resuming is impossible (410 Gone).
    server.delete(service('api'));
    server.delete(endpointSlice('api-1', 'api'));
    server.update(endpointSlice('web-1', 'web', { addresses: ['198.18.1.7'] }));
    server.compact();
    const batchesBefore = batches.length;
    const mark = server.requestMark;
    await new Promise((r) => setTimeout(r, 1_000));
    await server.restart();
    await eventually(
      'relisted state served',
      () => endpoints() === '198.18.1.7' && endpoints('shop/api') === undefined,
      10_000,
    );
    await allBack();

    expect(server.requests({ verb: 'watch', status: 410, since: mark })).toHaveLength(3);
    expect(server.requests({ verb: 'list', status: 200, since: mark })).toHaveLength(3);
    // Only what changed reached the model: no delete-everything-and-re-add.
    const applied = batches
      .slice(batchesBefore)
      .flat()
      .map((e) => `${e.op} ${e.kind} ${e.key}`);
    expect(applied.sort()).toEqual([
      'delete EndpointSlice shop/api-1',
      'delete Service shop/api',
      'upsert EndpointSlice shop/web-1',
    ]);
    // And shop/web was served at every revision in between.
    expect(served.length).toBeGreaterThan(0);
    expect(served.every((keys) => keys.includes('shop/web'))).toBe(true);
  });
});
