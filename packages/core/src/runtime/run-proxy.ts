import { Registry } from 'prom-client';
import { createCoreMetrics, type CoreMetrics } from '../metrics/core-metrics.js';
import { startMetricsServer, type MetricsServer } from '../metrics/server.js';
import { ProxyHealth } from '../health/proxy-health.js';
import { startHealthServer, type HealthServer } from '../health/health-server.js';
import { ServiceHealthServers } from '../health/service-health.js';
import type { HealthCheckAddresses } from '../health/health-check-addresses.js';
import type { ModelObserver } from '../model/global-model.js';
import type { NodeName, ObjectKind } from '../model/types.js';
import type { NodeLocalState } from '../nodeview/types.js';
import type { StreamTls } from '../stream/tls.js';
import type { Backend } from '../sync/backend.js';
import { SyncLoop } from '../sync/sync-loop.js';
import type { ListenAddress } from '../util/address.js';
import { systemClock, type Clock } from '../util/clock.js';
import { log } from '../util/log.js';
import type { Source } from '../watch/source.js';
import { attachStreamServers } from './attach-streams.js';
import { registerProcessFaults } from './process-faults.js';
import { Core } from './core.js';
import type { EventRecorder } from '../events/event-recorder.js';

/** A core's node-local stream: the state arrives computed, so this process runs no core. */
export interface StreamSource {
  readonly kind: 'connect';
  readonly address: string;
}

export interface ProxyConfig {
  readonly nodeName: NodeName;
  /** Where the state comes from: a source feeding an in-process core, or another core's stream. */
  readonly source: Source | StreamSource;
  /** Programs the kernel in this process; none = core only (serve the stream). */
  readonly backend?: Backend;
  /** Serve the node-local stream (`kpng.localnet.v1`) here. */
  readonly listen?: ListenAddress;
  /** Serve the global model (`kpng.global.v1`) here, for node agents of a central core. */
  readonly globalListen?: ListenAddress;
  /** Mutual TLS for the global stream; required unless `globalListen` is a unix socket or loopback. */
  readonly globalTls?: StreamTls;
  readonly metricsBindAddress?: ListenAddress;
  readonly healthzBindAddress?: ListenAddress;
  /** Addresses health-check node ports listen on (kube-proxy: 0.0.0.0 or the nodePortAddresses). */
  readonly healthCheckAddresses?: HealthCheckAddresses;
  readonly minSyncPeriodMs: number;
  readonly syncPeriodMs: number;
  readonly fullSyncPeriodMs: number;
  /** Kubernetes Events (upstream's `FailedToStartServiceHealthcheck`); none when unset. */
  readonly events?: EventRecorder;
  /** kube-proxy's `configSyncPeriod`: the in-process core's periodic resync (`Core.resync`). Unset: none. */
  readonly resyncPeriodMs?: number;
  /** `/proxyMode` answer, e.g. "nftables". */
  readonly proxyMode: string;
  readonly configz?: unknown;
  /** Core's metrics (process metrics and the converters' invalid-object counter included) and the backend's. */
  readonly registry?: Registry;
  readonly clock?: Clock;
  /** Stops the proxy when aborted (the programs wire SIGINT/SIGTERM here). */
  readonly signal?: AbortSignal;
}

export interface RunningProxy {
  /** The in-process core; absent when the state comes from another core's stream. */
  readonly core?: Core;
  readonly metrics: CoreMetrics;
  readonly registry: Registry;
  readonly metricsServer?: MetricsServer;
  readonly healthServer?: HealthServer;
  /** Resolves with the first node-local state (after every source kind synced). */
  readonly firstState: Promise<NodeLocalState>;
  /** Resolves when the source stopped (after `stop()` or an abort), rejects on a fatal source error. */
  readonly done: Promise<void>;
  /** Stops the source, the sync loop, the backend and every server; idempotent. */
  stop(): Promise<void>;
}

/**
 * One kpng process, whatever the program: source -> core -> (backend through the sync loop), or a
 * core's stream -> backend, plus the servers kube-proxy has (metrics on 10249, health on 10256,
 * health-check node ports) and the stream servers. Every program (kpng, kpng-<backend>, the compat
 * kube-proxy) is this function plus its flags.
 */
export async function runProxy(config: ProxyConfig): Promise<RunningProxy> {
  const clock = config.clock ?? systemClock;
  const registry = config.registry ?? new Registry();
  const metrics = createCoreMetrics(registry);
  registerProcessFaults(registry);
  const pending = new PendingCounts(metrics, config.backend !== undefined);
  const health = new ProxyHealth({ clock, syncPeriodMs: config.syncPeriodMs, metrics });
  const closers: { close(): Promise<void> }[] = [];
  const abort = new AbortController();
  const stopSignal = config.signal;

  const firstState = resolvable<NodeLocalState>();
  const publish: ((state: NodeLocalState, changes: Parameters<SyncLoop['offer']>[1], revision: number) => void)[] = [
    (state) => {
      firstState.resolve(state);
      // This node being deleted makes /healthz fail, so load balancers drain it (kube-proxy's nodeEligible).
      health.nodeEligible = state.node.eligible;
    },
  ];

  let loop: SyncLoop | undefined;
  let serviceHealth: ServiceHealthServers | undefined;
  if (config.backend) {
    serviceHealth = new ServiceHealthServers({
      ...(config.healthCheckAddresses ? { addresses: config.healthCheckAddresses } : {}),
      ...(config.events ? { events: config.events } : {}),
      nodeName: config.nodeName,
      refused: metrics.kpng.httpRefusedTotal,
    });
    loop = new SyncLoop({
      backend: countingPending(config.backend, pending),
      clock,
      minSyncPeriodMs: config.minSyncPeriodMs,
      syncPeriodMs: config.syncPeriodMs,
      fullSyncPeriodMs: config.fullSyncPeriodMs,
      metrics,
      health,
      serviceHealth,
    });
    await loop.start();
    const started = loop;
    publish.push((state, changes, revision) => started.offer(state, changes, revision));
  }

  let core: Core | undefined;
  let done: Promise<void>;
  const source = config.source;
  if (isStreamSource(source)) {
    if (config.listen || config.globalListen)
      throw new Error('serving a stream needs an in-process core, not --connect');
    // gRPC (~18 MiB) is loaded only by a program that reads a core's stream (`--connect`).
    done = import('../stream/client/client.js').then(({ watchLocalState }) =>
      watchLocalState(
        source.address,
        (state, info) => {
          for (const p of publish) p(state, info.changes, info.revision);
        },
        { signal: abort.signal },
      ),
    );
  } else {
    const running = new Core({
      nodeName: config.nodeName,
      clock,
      modelObserver: modelMetrics(metrics, pending),
      onNodeViewDuration: (s) => metrics.nodeViewDuration(s),
      ...(config.resyncPeriodMs !== undefined ? { resyncPeriodMs: config.resyncPeriodMs } : {}),
      onResync: (changed) => metrics.resynced(changed),
    });
    core = running;
    closers.push({ close: async () => running.close() });
    running.addLocalConsumer({
      publish: (state, changes, revision) => publish.forEach((p) => p(state, changes, revision)),
    });
    const streams = {
      ...(config.listen ? { local: config.listen } : {}),
      ...(config.globalListen ? { global: config.globalListen } : {}),
      ...(config.globalTls ? { globalTls: config.globalTls } : {}),
    };
    if (streams.local || streams.global) closers.push(await attachStreamServers(streams)(running, metrics));
    done = source.run(running.model, abort.signal);
  }
  done = done.catch((e: unknown) => {
    log.error('source stopped', { source: isStreamSource(source) ? `stream ${source.address}` : source.name, err: e });
    throw e;
  });
  done.catch(() => {}); // observed through `done` by the caller; never an unhandled rejection

  let metricsServer: MetricsServer | undefined;
  if (config.metricsBindAddress?.kind === 'tcp') {
    metricsServer = await startMetricsServer({
      host: config.metricsBindAddress.host,
      port: config.metricsBindAddress.port,
      registry,
      proxyMode: config.proxyMode,
      configz: config.configz,
      refused: metrics.kpng.httpRefusedTotal,
    });
    closers.push(metricsServer);
  }
  let healthServer: HealthServer | undefined;
  if (config.healthzBindAddress?.kind === 'tcp') {
    healthServer = await startHealthServer({
      host: config.healthzBindAddress.host,
      port: config.healthzBindAddress.port,
      health,
      clock,
      refused: metrics.kpng.httpRefusedTotal,
    });
    closers.push(healthServer);
  }

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      abort.abort();
      await done.catch(() => {});
      await loop?.stop();
      await serviceHealth?.close();
      await config.backend?.close?.();
      for (const c of closers.reverse()) await c.close();
    })());
  if (stopSignal) {
    if (stopSignal.aborted) void stop();
    else stopSignal.addEventListener('abort', () => void stop(), { once: true });
  }

  return {
    ...(core ? { core } : {}),
    metrics,
    registry,
    firstState: firstState.promise,
    done,
    ...(metricsServer ? { metricsServer } : {}),
    ...(healthServer ? { healthServer } : {}),
    stop,
  };
}

function isStreamSource(source: Source | StreamSource): source is StreamSource {
  return (source as Partial<StreamSource>).kind === 'connect';
}

function resolvable<T>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** The backend as the sync loop sees it: a successful sync also clears the pending-change gauges. */
function countingPending(backend: Backend, pending: PendingCounts): Backend {
  return {
    name: backend.name,
    families: backend.families,
    ...(backend.setup ? { setup: () => backend.setup!() } : {}),
    ...(backend.check ? { check: () => backend.check!() } : {}),
    sync: async (req) => {
      const synced = pending.snapshot();
      const outcome = await backend.sync(req);
      pending.synced(synced);
      return outcome;
    },
    cleanup: () => backend.cleanup(),
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
