import { Registry } from 'prom-client';
import { createCoreMetrics, type CoreMetrics } from '../metrics/core-metrics.js';
import { startMetricsServer, type MetricsServer } from '../metrics/server.js';
import { ProxyHealth } from '../health/proxy-health.js';
import { startHealthServer, type HealthServer } from '../health/health-server.js';
import type { NodeLocalState } from '../nodeview/types.js';
import type { ListenAddress } from '../util/address.js';
import { systemClock, type Clock } from '../util/clock.js';
import { log } from '../util/log.js';
import { registerProcessFaults } from '../metrics/process-faults.js';
import type { NodeView } from './node-view.js';
import { isStreamSource, startPipeline, type PipelineSettings } from './pipeline.js';

export type { PipelineSettings, StreamSource } from './pipeline.js';

/** The pipeline's settings (`PipelineSettings`), and the process's servers and lifecycle. */
export interface ProxyConfig extends PipelineSettings {
  readonly metricsBindAddress?: ListenAddress;
  readonly healthzBindAddress?: ListenAddress;
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
  /** The in-process node view (with its model); absent when the state comes from another core's stream. */
  readonly nodeView?: NodeView;
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
 * One kpng process, whatever the program: the pipeline (`pipeline.ts`: watch -> model -> node view
 * -> (stream) -> sync -> backend), plus the servers kube-proxy has (metrics on 10249, health on
 * 10256) and the process's lifecycle. Every program (kpng, kpng-<backend>, the compat kube-proxy)
 * is this function plus its flags.
 */
export async function runProxy(config: ProxyConfig): Promise<RunningProxy> {
  const clock = config.clock ?? systemClock;
  const registry = config.registry ?? new Registry();
  const metrics = createCoreMetrics(registry);
  registerProcessFaults(registry);
  const health = new ProxyHealth({ clock, syncPeriodMs: config.syncPeriodMs, metrics });
  const abort = new AbortController();
  const stopSignal = config.signal;

  // watch -> model -> node view -> (stream) -> sync -> backend: pipeline.ts
  const pipeline = await startPipeline({ ...config, clock, metrics, health, signal: abort.signal });
  const source = config.source;
  const done = pipeline.done.catch((e: unknown) => {
    log.error('source stopped', { source: isStreamSource(source) ? `stream ${source.address}` : source.name, err: e });
    throw e;
  });
  done.catch(() => {}); // observed through `done` by the caller; never an unhandled rejection

  const closers: { close(): Promise<void> }[] = [];
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
      await pipeline.stopSync();
      for (const c of closers.reverse()) await c.close();
      await pipeline.close();
    })());
  if (stopSignal) {
    if (stopSignal.aborted) void stop();
    else stopSignal.addEventListener('abort', () => void stop(), { once: true });
  }

  return {
    ...(pipeline.nodeView ? { nodeView: pipeline.nodeView } : {}),
    metrics,
    registry,
    firstState: pipeline.firstState,
    done,
    ...(metricsServer ? { metricsServer } : {}),
    ...(healthServer ? { healthServer } : {}),
    stop,
  };
}
