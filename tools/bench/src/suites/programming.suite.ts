import { nodeName, systemClock } from '@kpng/core';
import { NodeView, createCoreMetrics, ProxyHealth, SyncLoop } from '@kpng/core/runtime';
import { SILENT_LOGGER } from '@kpng/core/testing';
import { canCreateNamespaces, createNamespace, sweepLeftovers } from '@kpng/lab';
import { NftBackend } from '@kpng/nft';
import { Registry, type Histogram } from 'prom-client';
import { createChurn } from '../scenarios/churn.js';
import { sliceEvent, toModelEvents } from '../scenarios/model-events.js';
import { defineSuite } from './suite.js';

/**
 * Network programming latency under `churn`, as the sync loop observes it: core + SyncLoop + the nft
 * backend in a network namespace, fed the churn's EndpointSlice changes at their scheduled times
 * (trigger time stamped when the change is made, with millisecond precision, unlike a real API
 * server's whole seconds). Reports quantiles of
 * - `programming.from-event`: `kpng_network_programming_from_event_seconds` (change offered to the
 *   sync loop -> rules applied, fine buckets);
 * - `programming.npl`: `kubeproxy_network_programming_duration_seconds` (trigger time -> applied,
 *   kube-proxy's buckets: 0.25 s steps below 1 s, then 1 s steps);
 * both estimated from the histograms' buckets as Prometheus' histogram_quantile does.
 * Options: `--seconds=N` churn duration (default 20), `--rate=N` changes per second (default 100),
 * `--min-sync-period=MS` (default 1000, kube-proxy's default).
 */
export default defineSuite({
  name: 'programming',
  description:
    'network programming latency (from event, and kube-proxy NPL) under churn: core + sync loop + nft backend',
  scenarios: ['churn'],
  async run(ctx) {
    const capability = await canCreateNamespaces();
    if (!capability.ok)
      throw new Error(`the programming suite needs to create network namespaces: ${capability.reason}`);
    await sweepLeftovers();
    const seconds = Number(ctx.options['seconds'] ?? 20);
    const rate = Number(ctx.options['rate'] ?? 100);
    const minSyncPeriodMs = Number(ctx.options['min-sync-period'] ?? 1_000);
    const objects = ctx.objects();
    const registry = new Registry();
    const metrics = createCoreMetrics(registry, { processMetrics: false });
    const health = new ProxyHealth({ clock: systemClock, syncPeriodMs: 30_000, metrics });
    const core = new NodeView({ nodeName: nodeName(objects.benchNode) });
    const ns = await createNamespace('programming-bench');
    const onAbort = (): void => void ns.delete();
    let closeBackend = async (): Promise<void> => {};
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    try {
      // nft from the backend's own shell in the namespace, as kpng-nft runs it.
      const backend = new NftBackend({ netns: ns.name, conntrack: false, log: SILENT_LOGGER });
      closeBackend = () => backend.close();
      const loop = new SyncLoop({
        backend,
        clock: systemClock,
        minSyncPeriodMs,
        syncPeriodMs: 30_000,
        fullSyncPeriodMs: 3_600_000,
        metrics,
        health,
        log: SILENT_LOGGER,
      });
      core.addLocalConsumer({ publish: (state, changes, revision) => loop.offer(state, changes, revision) });
      core.model.apply(toModelEvents(objects));
      for (const kind of ['Service', 'EndpointSlice', 'Node'] as const) core.model.synced(kind);
      await loop.start();
      const syncs = () => count(registry, 'kubeproxy_sync_proxy_rules_duration_seconds');
      await until(async () => (await syncs()) >= 1, 120_000);
      ctx.log(
        `programming: first full sync done; churn at ${rate}/s for ${seconds} s, minSyncPeriod ${minSyncPeriodMs} ms`,
      );

      const churn = createChurn(objects, { ratePerSecond: rate, durationSeconds: seconds });
      const start = performance.now();
      for (
        let step = churn.next(Date.now());
        step !== undefined && !ctx.signal.aborted;
        step = churn.next(Date.now())
      ) {
        const due = start + step.offsetMs - performance.now();
        if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
        // sliceEvent leaves the trigger time out (the load figures do not need it); NPL does.
        const event = sliceEvent(step.slice);
        if (event.op !== 'upsert') throw new Error('churn produced a slice deletion');
        core.model.apply([{ ...event, triggerTime: Date.parse(step.triggerTime) }]);
      }
      // Let the last changes land: one more sync after the churn ends.
      const after = await syncs();
      await until(async () => (await syncs()) > after, 60_000);
      await loop.stop();

      for (const [metric, name] of [
        ['programming.from-event', 'kpng_network_programming_from_event_seconds'],
        ['programming.npl', 'kubeproxy_network_programming_duration_seconds'],
      ] as const) {
        const buckets = await bucketsOf(registry, name);
        const n = buckets.at(-1)?.count ?? 0;
        const q = (p: number) => round(quantile(p, buckets) * 1_000);
        ctx.report({ scenario: ctx.scenario, metric, value: q(0.5), unit: 'ms', n, p50: q(0.5), p99: q(0.99) });
        ctx.log(`${metric}: n=${n} p50=${q(0.5)} p90=${q(0.9)} p99=${q(0.99)} ms`);
      }
      ctx.reportValue('programming.syncs', await syncs(), 'count');
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      await closeBackend();
      await ns.delete();
    }
  },
});

interface Bucket {
  readonly le: number;
  readonly count: number;
}

/** The IPv4 series' cumulative buckets (the churn scenario is single-stack IPv4). */
async function bucketsOf(registry: Registry, name: string): Promise<Bucket[]> {
  const metric = registry.getSingleMetric(name) as Histogram | undefined;
  if (!metric) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  return values
    .filter((v) => v.metricName === `${name}_bucket` && v.labels['ip_family'] === 'IPv4')
    .map((v) => ({ le: v.labels['le'] === '+Inf' ? Infinity : Number(v.labels['le']), count: v.value }))
    .sort((a, b) => a.le - b.le);
}

async function count(registry: Registry, name: string): Promise<number> {
  const buckets = await bucketsOf(registry, name);
  return buckets.at(-1)?.count ?? 0;
}

/** Prometheus' histogram_quantile: linear interpolation inside the bucket holding the rank. */
function quantile(q: number, buckets: readonly Bucket[]): number {
  const total = buckets.at(-1)?.count ?? 0;
  if (total === 0) return NaN;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const b of buckets) {
    if (b.count >= rank) {
      if (b.le === Infinity) return lower;
      return lower + ((b.le - lower) * (rank - below)) / Math.max(1, b.count - below);
    }
    lower = b.le;
    below = b.count;
  }
  return lower;
}

const round = (x: number): number => Math.round(x * 10) / 10;

async function until(done: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
