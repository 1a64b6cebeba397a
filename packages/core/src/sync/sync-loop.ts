import type { CoreMetrics } from '../metrics/core-metrics.js';
import type { IPFamily } from '../model/types.js';
import type { NodeLocalState, StateChanges } from '../nodeview/types.js';
import type { Clock } from '../util/clock.js';
import { toError } from '../util/errors.js';
import { ipFamilyOf } from '../util/ip.js';
import { log as defaultLog, type Logger } from '../util/log.js';
import type { Backend } from './backend.js';
import { countNoLocalEndpoints } from './no-local-endpoints.js';
import { PendingChanges } from './pending-changes.js';
import { SyncRunner } from './runner.js';

/** The metrics the sync loop records (`CoreMetrics` fits). */
export type SyncMetrics = Pick<
  CoreMetrics,
  'syncQueued' | 'syncSucceeded' | 'syncAttemptFailed' | 'programmingLatency' | 'noLocalEndpoints' | 'syncFailed'
>;

/** The node health bookkeeping the sync loop feeds (`ProxyHealth` fits). */
export interface SyncHealth {
  queuedUpdate(family: IPFamily): void;
  updated(family: IPFamily): void;
  /** The loop stopped syncing `family` (the Node has no address in it). */
  forget(family: IPFamily): void;
  isHealthy(): boolean;
}

/** The per-Service health-check node ports, reconciled after each successful sync (`ServiceHealthServers` fits). */
export interface ServiceHealthSync {
  sync(services: NodeLocalState['services'], proxyHealthy: () => boolean, node: NodeLocalState['node']): Promise<void>;
}

export interface SyncLoopOptions {
  readonly backend: Backend;
  readonly clock: Clock;
  /** Minimum time between the end of one sync and the start of the next. */
  readonly minSyncPeriodMs: number;
  /** Retry delay after a failed sync (also the health timeout basis, through `health`). */
  readonly syncPeriodMs: number;
  /** Upper bound between full syncs; also how often the loop syncs when nothing changes. */
  readonly fullSyncPeriodMs: number;
  readonly metrics: SyncMetrics;
  readonly health: SyncHealth;
  readonly serviceHealth?: ServiceHealthSync;
  readonly log?: Logger;
}

/**
 * Drives a backend from the stream of node-local states, with kube-proxy's cadence: changes are
 * coalesced between syncs, syncs are spaced by `minSyncPeriodMs`, a failure is retried as a full
 * sync after `syncPeriodMs`, and a full sync runs at least every `fullSyncPeriodMs`.
 *
 * Trigger times of a failed sync are KEPT and observed when a later sync succeeds, which upstream
 * does not do (it loses them, under-reporting programming latency exactly when it is worst): the
 * latency metric then includes the failed attempts and the retry delay, as it should.
 */
export class SyncLoop {
  private readonly runner: SyncRunner;
  private readonly pending = new PendingChanges();
  private readonly log: Logger;
  private latest: { readonly state: NodeLocalState; readonly revision: number } | undefined;
  /** The backend's families this node has (see `nodeFamilies`); all of the backend's until a Node is known. */
  private families: readonly IPFamily[];
  private needFullSync = true;
  private lastFullSyncStart: number | undefined;

  constructor(private readonly opts: SyncLoopOptions) {
    this.log = opts.log ?? defaultLog.with({ backend: opts.backend.name });
    this.families = opts.backend.families;
    this.runner = new SyncRunner({
      fn: () => this.syncOnce(),
      clock: opts.clock,
      minIntervalMs: opts.minSyncPeriodMs,
      maxIntervalMs: opts.fullSyncPeriodMs,
      log: this.log,
    });
  }

  /** A new node-local state exists: remember it, accumulate its changes and request a sync. */
  offer(state: NodeLocalState, changes: StateChanges, revision: number): void {
    this.latest = { state, revision };
    const families = nodeFamilies(this.opts.backend.families, state);
    for (const f of this.families) if (!families.includes(f)) this.opts.health.forget(f);
    this.families = families;
    this.pending.add(changes);
    this.markQueued();
    this.runner.run();
  }

  /** Sets the backend up, then starts syncing (at once if a state was offered already). */
  async start(): Promise<void> {
    await this.opts.backend.setup?.();
    const { metrics, health, clock } = this.opts;
    for (const family of this.families) {
      // As upstream's SyncLoop: start-up counts as fresh (so health waits calmly for a first
      // state) and as a queued sync (the sources are syncing).
      health.updated(family);
      metrics.syncQueued(family, clock.now());
      if (this.latest) health.queuedUpdate(family); // offered before start: still pending
    }
    this.runner.start();
  }

  /** Stops syncing; resolves once the sync in progress, if any, has finished. */
  stop(): Promise<void> {
    return this.runner.stop();
  }

  private markQueued(): void {
    const now = this.opts.clock.now();
    for (const family of this.families) {
      this.opts.metrics.syncQueued(family, now);
      this.opts.health.queuedUpdate(family);
    }
  }

  private async syncOnce(): Promise<void> {
    const latest = this.latest;
    if (!latest) return; // nothing to program before the first state
    const { backend, clock } = this.opts;
    const changes = this.pending.take();
    const startedAt = clock.monotonic();
    const full = this.needFullSync || this.fullSyncDue(startedAt) || changes.nodeChanged || !changes.updatedServices;
    try {
      await backend.sync({ state: latest.state, changes, full, revision: latest.revision });
    } catch (e) {
      const seconds = (clock.monotonic() - startedAt) / 1000;
      for (const family of this.families) this.opts.metrics.syncAttemptFailed(family, seconds, full);
      this.pending.restore(changes);
      this.needFullSync = true;
      this.opts.metrics.syncFailed(backend.name);
      this.log.error('sync failed; retrying with a full sync', {
        revision: latest.revision,
        full,
        retryInMs: this.opts.syncPeriodMs,
        err: toError(e),
      });
      this.runner.retryAfter(this.opts.syncPeriodMs);
      return;
    }
    this.needFullSync = false;
    if (full) this.lastFullSyncStart = startedAt;
    const durationMs = clock.monotonic() - startedAt;
    this.recordSuccess(latest.state, changes, full, durationMs / 1000);
    this.log.info('synced', {
      revision: latest.revision,
      full,
      services: latest.state.services.length,
      changedServices: changes.updatedServices?.size ?? 'all',
      durationMs,
    });
    await this.opts.serviceHealth?.sync(latest.state.services, () => this.opts.health.isHealthy(), latest.state.node);
  }

  private fullSyncDue(now: number): boolean {
    return this.lastFullSyncStart === undefined || now - this.lastFullSyncStart >= this.opts.fullSyncPeriodMs;
  }

  private recordSuccess(state: NodeLocalState, changes: StateChanges, full: boolean, seconds: number): void {
    const { metrics, health, clock } = this.opts;
    const now = clock.now();
    const serviceFamilies = new Map(state.services.map((s) => [s.key, s.families]));
    for (const family of this.families) {
      metrics.syncSucceeded(family, seconds, full, now);
      // Upstream's per-family proxier only sees its family's EndpointSlices, so a trigger time is
      // observed once per family the Service has, not once per family the proxy runs.
      // A Service no longer (or not yet) in the state counts once, under the node's primary family.
      for (const [key, times] of changes.triggerTimes) {
        const families = serviceFamilies.get(key);
        if (families ? families[family] === undefined : family !== this.families[0]) continue;
        for (const t of times) metrics.programmingLatency(family, Math.max(0, now - t) / 1000);
      }
      const noLocal = countNoLocalEndpoints(state, family);
      metrics.noLocalEndpoints('internal', family, noLocal.internal);
      metrics.noLocalEndpoints('external', family, noLocal.external);
      health.updated(family);
    }
  }
}

/**
 * The IP families this node has: those of the backend's families that the Node has an address in.
 * Upstream runs a proxier only for the families the node supports; a single-stack node observes
 * one family's syncs, not two. A Node without addresses (not seen yet) keeps all of the backend's.
 */
export function nodeFamilies(backendFamilies: readonly IPFamily[], state: NodeLocalState): readonly IPFamily[] {
  const has = new Set(state.node.addresses.map(ipFamilyOf));
  const families = backendFamilies.filter((f) => has.has(f));
  return families.length > 0 ? families : backendFamilies;
}
