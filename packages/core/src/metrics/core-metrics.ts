import { collectDefaultMetrics, type Registry } from 'prom-client';
import type { IPFamily } from '../model/types.js';
import { createKpngMetrics, type KpngMetrics } from './kpng-metrics.js';
import { registerInvalidObjects } from './objects.js';
import { createProxyMetrics, type ProxyMetrics } from './proxy-metrics.js';
import { registerStreamClientRefusals } from './stream-client.js';

/** The `traffic_policy` label of `kubeproxy_sync_proxy_rules_no_local_endpoints_total`. */
export type TrafficPolicyLabel = 'internal' | 'external';

export interface CoreMetricsOptions {
  /** Also register prom-client's process and Node.js runtime metrics (`process_*`, `nodejs_*`). Default true. */
  readonly processMetrics?: boolean;
}

/**
 * Every metric core emits, on the registry passed in, behind small intention-named methods so
 * callers (model, change trackers, stream, sync loop, health server) never spell metric names or
 * label values. The prom-client objects stay reachable through `proxy` and `kpng`.
 */
export class CoreMetrics {
  readonly proxy: ProxyMetrics;
  readonly kpng: KpngMetrics;

  constructor(
    readonly registry: Registry,
    options: CoreMetricsOptions = {},
  ) {
    this.proxy = createProxyMetrics(registry);
    this.kpng = createKpngMetrics(registry);
    registerInvalidObjects(registry);
    registerStreamClientRefusals(registry);
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  }

  // --- sync loop ---

  /** A sync was requested at `atEpochMs`. */
  syncQueued(family: IPFamily, atEpochMs: number): void {
    this.proxy.syncProxyRulesLastQueuedTimestamp.set({ ip_family: family }, atEpochMs / 1000);
  }

  /** A sync succeeded: its duration (also in the full or partial variant) and the time it ended. */
  syncSucceeded(family: IPFamily, durationSeconds: number, full: boolean, endedAtEpochMs: number): void {
    this.syncDuration(family, durationSeconds, full);
    this.proxy.syncProxyRulesLastTimestamp.set({ ip_family: family }, endedAtEpochMs / 1000);
  }

  /** A failed sync's duration: upstream observes the duration histograms in a defer, failures included. */
  syncAttemptFailed(family: IPFamily, durationSeconds: number, full: boolean): void {
    this.syncDuration(family, durationSeconds, full);
  }

  private syncDuration(family: IPFamily, durationSeconds: number, full: boolean): void {
    const labels = { ip_family: family };
    this.proxy.syncProxyRulesDuration.observe(labels, durationSeconds);
    (full ? this.proxy.syncFullProxyRulesDuration : this.proxy.syncPartialProxyRulesDuration).observe(
      labels,
      durationSeconds,
    );
  }

  /** One sample of event-to-rules-applied latency (now - last-change-trigger-time). */
  programmingLatency(family: IPFamily, seconds: number): void {
    this.proxy.networkProgrammingDuration.observe({ ip_family: family }, seconds);
  }

  /** One sample of change-received-to-rules-applied latency, this process's monotonic clock. */
  programmingFromEvent(family: IPFamily, seconds: number): void {
    this.kpng.networkProgrammingFromEvent.observe({ ip_family: family }, seconds);
  }

  noLocalEndpoints(policy: TrafficPolicyLabel, family: IPFamily, count: number): void {
    this.proxy.noLocalEndpointsTotal.set({ traffic_policy: policy, ip_family: family }, count);
  }

  syncFailed(backend: string): void {
    this.kpng.syncFailuresTotal.inc({ backend });
  }

  /** A failed sync's kernel write hung past the backend's write timeout (also a `syncFailed`). */
  syncWriteTimedOut(backend: string): void {
    this.kpng.syncWriteTimeoutsTotal.inc({ backend });
  }

  /** A sync repaired drift of `kind` (rules another program removed). */
  driftRepaired(backend: string, kind: string): void {
    this.kpng.syncDriftRepairsTotal.inc({ backend, kind });
  }

  // --- node health server ---

  healthzAnswered(code: number): void {
    this.proxy.proxyHealthzTotal.inc({ code: String(code) });
  }

  livezAnswered(code: number): void {
    this.proxy.proxyLivezTotal.inc({ code: String(code) });
  }

  // --- change trackers (kube-proxy's service/endpoint change metrics) ---

  /** `received` Service updates arrived; `pending` Services now wait for a sync. */
  serviceChanges(received: number, pending: number): void {
    if (received > 0) this.proxy.serviceChangesTotal.inc(received);
    this.proxy.serviceChangesPending.set(pending);
  }

  /** `received` EndpointSlice updates arrived; `pending` endpoint changes now wait for a sync. */
  endpointChanges(received: number, pending: number): void {
    if (received > 0) this.proxy.endpointChangesTotal.inc(received);
    this.proxy.endpointChangesPending.set(pending);
  }

  // --- model ---

  modelEvent(kind: string, count = 1): void {
    this.kpng.modelEventsTotal.inc({ kind }, count);
  }

  modelRevision(): void {
    this.kpng.modelRevisionsTotal.inc();
  }

  modelObjects(kind: string, count: number): void {
    this.kpng.modelObjects.set({ kind }, count);
  }

  resynced(changed: boolean): void {
    this.kpng.resyncsTotal.inc({ result: changed ? 'changed' : 'unchanged' });
  }

  nodeViewDuration(seconds: number): void {
    this.kpng.nodeViewDuration.observe(seconds);
  }

  // --- state stream ---

  streamClients(api: string, count: number): void {
    this.kpng.streamClients.set({ api }, count);
  }

  streamStateSent(api: string): void {
    this.kpng.streamStatesSentTotal.inc({ api });
  }

  streamRefused(api: string, reason: string): void {
    this.kpng.streamRefusedTotal.inc({ api, reason });
  }

  streamRevision(revision: number): void {
    this.kpng.streamRevision.set(revision);
  }
}

/** Creates core's metrics on `registry` (one call per registry: names may be registered once). */
export function createCoreMetrics(registry: Registry, options: CoreMetricsOptions = {}): CoreMetrics {
  return new CoreMetrics(registry, options);
}
