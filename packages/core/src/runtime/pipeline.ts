import type { CoreMetrics } from '../metrics/core-metrics.js';
import type { ProxyHealth } from '../health/proxy-health.js';
import { ServiceHealthServers } from '../health/service-health.js';
import { isNodePortSelection, type HealthCheckAddresses } from '../health/health-check-addresses.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { ModelObserver } from '../model/global-model.js';
import type { NodeName, ObjectKind } from '../model/types.js';
import { nodePortAddressesReader, type NodePortAddressesReader } from '../nodeview/interface-addresses.js';
import type { NodeLocalState, StateChanges } from '../nodeview/types.js';
import type { StreamTls } from '../stream/tls.js';
import type { Backend } from '../sync/backend.js';
import { SyncLoop, type ChangesPending } from '../sync/sync-loop.js';
import type { ListenAddress } from '../util/address.js';
import type { Clock } from '../util/clock.js';
import type { Source } from '../watch/source.js';
import { attachStreamServers } from './attach-streams.js';
import { NodeView } from './node-view.js';

/*
 * kpng's pipeline, wired here and nowhere else. One change travels, in order:
 *
 *   watch      a Source (watch/kube, watch/file, watch/api) applies model events to ...
 *   model      GlobalModel (model/global-model.ts): validated objects, a revision, a change set
 *   node view  NodeView (runtime/node-view.ts over nodeview/): this node's state, recomputed for what changed
 *   (stream)   optional: StateHub -> gRPC (stream/server) ... watchLocalState (stream/client) in another process
 *   sync       SyncLoop (sync/sync-loop.ts): kube-proxy's cadence, coalescing, retries, health, metrics
 *              (before each sync: nodePortAddresses over this namespace's interfaces, nodeview/interface-addresses.ts)
 *   backend    Backend.sync (a backend package): render, diff, apply to the kernel
 *
 * The stages after the node view (`afterNodeView`: node health, then sync -> backend) are the same
 * object whether the node view runs in this process or in a core this process reads the stream of:
 *
 *   in-process:  watch -> model -> node view ---------------------------------------> afterNodeView
 *   split core:  watch -> model -> node view -> stream hub =gRPC=> stream client ----> afterNodeView
 *
 * Each stage only calls the next one; nothing calls back into an earlier stage.
 */

/** A core's node-local stream: the state arrives computed, so this process runs no watch, model or node view. */
export interface StreamSource {
  readonly kind: 'connect';
  readonly address: string;
}

/** What receives each node-local state: the stages after the node view. */
export type NodeStateSink = (state: NodeLocalState, changes: StateChanges, revision: number) => void;

/** What a program chooses about the pipeline (`ProxyConfig` adds the servers and lifecycle). */
export interface PipelineSettings {
  readonly nodeName: NodeName;
  /** Where the state comes from: a source feeding an in-process core, or another core's stream. */
  readonly source: Source | StreamSource;
  /** Programs the kernel in this process; none = core only (serve the stream). */
  readonly backend?: Backend;
  /** The in-process core keeps the policy view (`NodeViewOptions.policy`): the backend enforces NetworkPolicy. */
  readonly policy?: boolean;
  /** Serve the node-local stream (`kpng.localnet.v1`) here. */
  readonly listen?: ListenAddress;
  /** Serve the global model (`kpng.global.v1`) here, for node agents of a central core. */
  readonly globalListen?: ListenAddress;
  /** Mutual TLS for the global stream; required unless `globalListen` is a unix socket or loopback. */
  readonly globalTls?: StreamTls;
  /**
   * Addresses health-check node ports listen on (kube-proxy: 0.0.0.0, or where nodePortAddresses
   * selects: the sync stage's resolution, the backend's when it declares `nodePorts`).
   */
  readonly healthCheckAddresses?: HealthCheckAddresses;
  readonly minSyncPeriodMs: number;
  readonly syncPeriodMs: number;
  readonly fullSyncPeriodMs: number;
  /** Kubernetes Events (upstream's `FailedToStartServiceHealthcheck`); none when unset. */
  readonly events?: EventRecorder;
  /** kube-proxy's `configSyncPeriod`: the in-process core's periodic resync (`NodeView.resync`). Unset: none. */
  readonly resyncPeriodMs?: number;
}

export interface PipelineConfig extends PipelineSettings {
  readonly clock: Clock;
  readonly metrics: CoreMetrics;
  readonly health: ProxyHealth;
  /** Stops the watch (or the stream client). */
  readonly signal: AbortSignal;
}

export interface Pipeline {
  /** The in-process node view (with its model); absent when the state comes from another core's stream. */
  readonly nodeView?: NodeView;
  /** Resolves with the first node-local state (after every source kind synced). */
  readonly firstState: Promise<NodeLocalState>;
  /** The watch (or stream client): resolves when it stopped, rejects on a fatal error. */
  readonly done: Promise<void>;
  /** Stops sync, the health-check node ports and the backend (after the watch stopped). */
  stopSync(): Promise<void>;
  /** Closes the stream servers and the node view's resync timer. */
  close(): Promise<void>;
}

/** Builds the stages and starts them, downstream first: the backend is set up before any state flows. */
export async function startPipeline(config: PipelineConfig): Promise<Pipeline> {
  const { clock, metrics, health } = config;
  const changesPending = new PendingCounts(metrics, config.backend !== undefined);

  // sync -> backend
  let sync: SyncLoop | undefined;
  let serviceHealth: ServiceHealthServers | undefined;
  if (config.backend) {
    // One resolution of nodePortAddresses a sync, for the backend and the health-check node ports:
    // the backend's declaration, else the ports' own setting (this process's namespace).
    const listen = config.healthCheckAddresses;
    const nodePorts =
      config.backend.nodePorts ??
      (listen !== undefined && isNodePortSelection(listen) ? { addresses: listen.nodePortAddresses } : undefined);
    serviceHealth = new ServiceHealthServers({
      ...(config.healthCheckAddresses ? { addresses: config.healthCheckAddresses } : {}),
      ...(config.events ? { events: config.events } : {}),
      nodeName: config.nodeName,
      refused: metrics.kpng.httpRefusedTotal,
    });
    sync = new SyncLoop({
      backend: config.backend,
      clock,
      minSyncPeriodMs: config.minSyncPeriodMs,
      syncPeriodMs: config.syncPeriodMs,
      fullSyncPeriodMs: config.fullSyncPeriodMs,
      metrics,
      health,
      serviceHealth,
      changesPending,
      ...(nodePorts ? { nodePortAddresses: nodePortAddressesOf(nodePorts) } : {}),
    });
    await sync.start();
  }

  // The stages after the node view, the same for both paths.
  const firstState = resolvable<NodeLocalState>();
  const afterNodeView: NodeStateSink = (state, changes, revision) => {
    firstState.resolve(state);
    // This node being deleted makes /healthz fail, so load balancers drain it (kube-proxy's nodeEligible).
    health.nodeEligible = state.node.eligible;
    sync?.offer(state, changes, revision);
  };

  const source = config.source;
  const closers: { close(): Promise<void> }[] = [];
  let inProcess: NodeView | undefined;
  let done: Promise<void>;
  if (isStreamSource(source)) {
    if (config.listen || config.globalListen)
      throw new Error('serving a stream needs an in-process core, not --connect');
    // (stream) -> afterNodeView. gRPC is loaded only by a program that reads a core's stream.
    done = import('../stream/client/client.js').then(({ watchLocalState }) =>
      watchLocalState(source.address, (state, info) => afterNodeView(state, info.changes, info.revision), {
        signal: config.signal,
      }),
    );
  } else {
    // model -> node view -> afterNodeView (and the stream hubs, when serving)
    const nodeView = new NodeView({
      nodeName: config.nodeName,
      clock,
      modelObserver: modelMetrics(metrics, changesPending),
      onNodeViewDuration: (s) => metrics.nodeViewDuration(s),
      ...(config.resyncPeriodMs !== undefined ? { resyncPeriodMs: config.resyncPeriodMs } : {}),
      onResync: (changed) => metrics.resynced(changed),
      ...(config.policy ? { policy: true } : {}),
    });
    inProcess = nodeView;
    closers.push({ close: async () => nodeView.close() });
    nodeView.addLocalConsumer({ publish: afterNodeView });
    const streams = {
      ...(config.listen ? { local: config.listen } : {}),
      ...(config.globalListen ? { global: config.globalListen } : {}),
      ...(config.globalTls ? { globalTls: config.globalTls } : {}),
    };
    if (streams.local || streams.global) closers.push(await attachStreamServers(streams)(nodeView, metrics));
    // watch -> model
    done = source.run(nodeView.model, config.signal);
  }

  return {
    ...(inProcess ? { nodeView: inProcess } : {}),
    firstState: firstState.promise,
    done,
    async stopSync() {
      await sync?.stop();
      await serviceHealth?.close();
      await config.backend?.close?.();
    },
    async close() {
      for (const c of closers.reverse()) await c.close();
    },
  };
}

export function isStreamSource(source: Source | StreamSource): source is StreamSource {
  return (source as Partial<StreamSource>).kind === 'connect';
}

function resolvable<T>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * kube-proxy's `*_changes_pending` gauges: Services and EndpointSlice updates received (by the
 * model) since the last successful sync. Without an in-process backend nothing is ever "pending",
 * so they stay 0.
 */
class PendingCounts implements ChangesPending {
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
  syncStarting(): () => void {
    const services = this.#services;
    const endpoints = this.#endpoints;
    // The sync succeeded: what was received before it started is no longer pending.
    return () => {
      this.#services -= services;
      this.#endpoints -= endpoints;
      this.metrics.serviceChanges(0, this.#services);
      this.metrics.endpointChanges(0, this.#endpoints);
    };
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

/** The backend's `nodePortAddresses`, resolved over its namespace's interfaces at each sync. */
function nodePortAddressesOf(nodePorts: NonNullable<Backend['nodePorts']>): NodePortAddressesReader {
  return nodePortAddressesReader(nodePorts.addresses, {
    ...(nodePorts.netns !== undefined ? { netns: nodePorts.netns } : {}),
    ...(nodePorts.listEveryAddressExcept !== undefined
      ? { listEveryAddressExcept: nodePorts.listEveryAddressExcept }
      : {}),
  });
}
