import { Registry } from 'prom-client';
import { createCoreMetrics, type CoreMetrics } from '../metrics/core-metrics.js';
import { startMetricsServer, type MetricsServer } from '../metrics/server.js';
import { ProxyHealth } from '../health/proxy-health.js';
import { startHealthServer, type HealthServer } from '../health/health-server.js';
import { ServiceHealthServers } from '../health/service-health.js';
import type { ModelObserver } from '../model/global-model.js';
import type { NodeName, ObjectKind } from '../model/types.js';
import type { NodeLocalState } from '../nodeview/types.js';
import type { Backend } from '../sync/backend.js';
import { SyncLoop } from '../sync/sync-loop.js';
import type { ListenAddress } from '../util/address.js';
import { systemClock, type Clock } from '../util/clock.js';
import { log } from '../util/log.js';
import type { Source } from '../watch/source.js';
import { Core } from './core.js';

export interface KpngConfig {
  readonly nodeName: NodeName;
  readonly source: Source;
  /** Programs the kernel in this process; none = core only (serve the stream). */
  readonly backend?: Backend;
  /** Extra node-local stream servers etc. started once the core exists (see `stream/`). */
  readonly attach?: readonly ((core: Core, metrics: CoreMetrics) => Promise<{ close(): Promise<void> }>)[];
  readonly metricsBindAddress?: ListenAddress;
  readonly healthzBindAddress?: ListenAddress;
  /** Addresses health-check node ports listen on (kube-proxy: 0.0.0.0 or the nodePortAddresses). */
  readonly healthCheckAddresses?: readonly string[];
  readonly minSyncPeriodMs: number;
  readonly syncPeriodMs: number;
  readonly fullSyncPeriodMs: number;
  /** `/proxyMode` answer, e.g. "nftables". */
  readonly proxyMode: string;
  readonly configz?: unknown;
  /** Registries served on /metrics besides core's own (backend metrics, prom-client's default). */
  readonly extraRegistries?: readonly Registry[];
  readonly registry?: Registry;
  readonly clock?: Clock;
}

export interface RunningKpng {
  readonly core: Core;
  readonly metrics: CoreMetrics;
  readonly registry: Registry;
  readonly metricsServer?: MetricsServer;
  readonly healthServer?: HealthServer;
  /** Resolves with the first node-local state (after every source kind synced). */
  readonly firstState: Promise<NodeLocalState>;
  /** Resolves when the source stopped (after `stop()`, or on a fatal source error). */
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Assembles one kpng process: source -> core -> (in-process backend through the sync loop) plus
 * the servers kube-proxy has (metrics on 10249, health on 10256, health-check node ports).
 */
export async function runKpng(config: KpngConfig): Promise<RunningKpng> {
  const clock = config.clock ?? systemClock;
  const registry = config.registry ?? new Registry();
  const metrics = createCoreMetrics(registry);
  const pending = new PendingCounts(metrics, config.backend !== undefined);
  const core = new Core({
    nodeName: config.nodeName,
    clock,
    modelObserver: modelMetrics(metrics, pending),
    onNodeViewDuration: (s) => metrics.nodeViewDuration(s),
  });

  const closers: { close(): Promise<void> }[] = [];
  const health = new ProxyHealth({ clock, syncPeriodMs: config.syncPeriodMs, metrics });
  let loop: SyncLoop | undefined;
  let serviceHealth: ServiceHealthServers | undefined;
  if (config.backend) {
    serviceHealth = new ServiceHealthServers(config.healthCheckAddresses ? { addresses: config.healthCheckAddresses } : {});
    const backend = config.backend;
    loop = new SyncLoop({
      backend: {
        name: backend.name,
        families: backend.families,
        ...(backend.setup ? { setup: () => backend.setup!() } : {}),
        sync: async (req) => {
          const synced = pending.snapshot();
          await backend.sync(req);
          pending.synced(synced);
        },
        cleanup: () => backend.cleanup(),
      },
      clock,
      minSyncPeriodMs: config.minSyncPeriodMs,
      syncPeriodMs: config.syncPeriodMs,
      fullSyncPeriodMs: config.fullSyncPeriodMs,
      metrics,
      health,
      serviceHealth,
    });
    await loop.start();
    core.addLocalConsumer({ publish: (state, changes, revision) => loop!.offer(state, changes, revision) });
  }
  // This node being deleted makes /healthz fail, so load balancers drain it (kube-proxy's nodeEligible).
  core.addLocalConsumer({ publish: (state) => void (health.nodeEligible = state.node.eligible) });

  const firstState = new Promise<NodeLocalState>((resolve) => {
    const off = core.addLocalConsumer({ publish: (state) => (off(), resolve(state)) });
  });

  for (const attach of config.attach ?? []) closers.push(await attach(core, metrics));

  let metricsServer: MetricsServer | undefined;
  if (config.metricsBindAddress?.kind === 'tcp') {
    metricsServer = await startMetricsServer({
      host: config.metricsBindAddress.host,
      port: config.metricsBindAddress.port,
      registry: [registry, ...(config.extraRegistries ?? [])],
      proxyMode: config.proxyMode,
      configz: config.configz,
    });
    closers.push(metricsServer);
  }
  let healthServer: HealthServer | undefined;
  if (config.healthzBindAddress?.kind === 'tcp') {
    healthServer = await startHealthServer({ host: config.healthzBindAddress.host, port: config.healthzBindAddress.port, health, clock });
    closers.push(healthServer);
  }

  const abort = new AbortController();
  const done = config.source.run(core.model, abort.signal).catch((e: unknown) => {
    log.error('source stopped', { source: config.source.name, err: e });
    throw e;
  });

  let stopped = false;
  return {
    core,
    metrics,
    registry,
    firstState,
    done,
    ...(metricsServer ? { metricsServer } : {}),
    ...(healthServer ? { healthServer } : {}),
    async stop() {
      if (stopped) return;
      stopped = true;
      abort.abort();
      await done.catch(() => {});
      await loop?.stop();
      await serviceHealth?.close();
      await config.backend?.close?.();
      for (const c of closers.reverse()) await c.close();
    },
  };
}

/**
 * kube-proxy's `*_changes_pending` gauges: Services and EndpointSlice updates received since the
 * last successful sync. Without an in-process backend nothing is ever "pending", so they stay 0.
 */
class PendingCounts {
  #services = 0;
  #endpoints = 0;
  constructor(
    private readonly metrics: CoreMetrics,
    private readonly tracking: boolean,
  ) {}
  received(kind: ObjectKind, count: number): void {
    if (kind === 'Service') this.#services += this.tracking ? count : 0;
    if (kind === 'EndpointSlice') this.#endpoints += this.tracking ? count : 0;
    this.metrics.serviceChanges(kind === 'Service' ? count : 0, this.#services);
    this.metrics.endpointChanges(kind === 'EndpointSlice' ? count : 0, this.#endpoints);
  }
  snapshot(): { services: number; endpoints: number } {
    return { services: this.#services, endpoints: this.#endpoints };
  }
  /** A sync succeeded: what was received before it started is no longer pending. */
  synced(before: { services: number; endpoints: number }): void {
    this.#services -= before.services;
    this.#endpoints -= before.endpoints;
    this.metrics.serviceChanges(0, this.#services);
    this.metrics.endpointChanges(0, this.#endpoints);
  }
}

function modelMetrics(metrics: CoreMetrics, pending: PendingCounts): ModelObserver {
  return {
    eventsReceived(kind: ObjectKind, count: number) {
      metrics.modelEvent(kind, count);
      pending.received(kind, count);
    },
    revisionCommitted() {
      metrics.modelRevision();
    },
    objectCount(kind: ObjectKind, count: number) {
      metrics.modelObjects(kind, count);
    },
  };
}
