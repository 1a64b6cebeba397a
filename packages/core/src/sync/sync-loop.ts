import type { CoreMetrics } from '../metrics/core-metrics.js';
import type { IPFamily, ServiceKey } from '../model/types.js';
import { findService } from '../nodeview/find-service.js';
import type { NodePortAddressesReader } from '../nodeview/interface-addresses.js';
import type { NodePortAddresses } from '../nodeview/node-port-addresses.js';
import type { NodeLocalState, StateChanges } from '../nodeview/types.js';
import type { Clock } from '../util/clock.js';
import { ErrorCodes, KpngError, toError } from '../util/errors.js';
import { ipFamilyOf } from '../util/ip.js';
import { log as defaultLog, type Logger } from '../util/log.js';
import type { Backend } from './backend.js';
import { NoLocalEndpointsCounter } from './no-local-endpoints.js';
import { PendingChanges } from './pending-changes.js';
import { addTriggerTimes } from '../util/trigger-times.js';
import { SyncRunner } from './runner.js';

/** The metrics the sync loop records (`CoreMetrics` fits). */
export type SyncMetrics = Pick<
  CoreMetrics,
  | 'syncQueued'
  | 'syncSucceeded'
  | 'syncAttemptFailed'
  | 'programmingLatency'
  | 'programmingFromEvent'
  | 'noLocalEndpoints'
  | 'syncFailed'
  | 'syncWriteTimedOut'
  | 'driftRepaired'
>;

/** The node health bookkeeping the sync loop feeds (`ProxyHealth` fits). */
export interface SyncHealth {
  /** `at`: when the update was requested (monotonic ms), now by default. */
  queuedUpdate(family: IPFamily, at?: number): void;
  updated(family: IPFamily): void;
  /** The loop stopped syncing `family` (the Node has no address in it). */
  forget(family: IPFamily): void;
  isHealthy(): boolean;
}

/** The per-Service health-check node ports, reconciled after each successful sync (`ServiceHealthServers` fits). */
export interface ServiceHealthSync {
  /** `updated`: the Services changed since the previous call (undefined: any may have, as after a full sync). */
  sync(
    services: NodeLocalState['services'],
    proxyHealthy: () => boolean,
    node: NodeLocalState['node'],
    updated?: ReadonlySet<ServiceKey>,
  ): Promise<void>;
}

/** Changes received upstream and not yet applied (kube-proxy's `*_changes_pending` gauges). */
export interface ChangesPending {
  /** A sync is about to call the backend; the function returned is called if it succeeds. */
  syncStarting(): () => void;
}

export interface SyncLoopOptions {
  readonly backend: Backend;
  readonly clock: Clock;
  /** Minimum time between the end of one sync and the start of the next. */
  readonly minSyncPeriodMs: number;
  /**
   * Retry delay after a failed sync (also the health timeout basis, through `health`), and how
   * often the backend's `check` looks for drift.
   */
  readonly syncPeriodMs: number;
  /** Upper bound between full syncs; also how often the loop syncs when nothing changes. */
  readonly fullSyncPeriodMs: number;
  readonly metrics: SyncMetrics;
  readonly health: SyncHealth;
  readonly serviceHealth?: ServiceHealthSync;
  readonly changesPending?: ChangesPending;
  readonly log?: Logger;
  /**
   * Resolves `nodePortAddresses` over the host's interfaces, read before each sync (as upstream):
   * the result is the synced state's `node.nodePortAddresses`; a change makes the sync full; a
   * failed read fails the sync (counted, retried). Unset: the state goes as offered.
   */
  readonly nodePortAddresses?: NodePortAddressesReader;
}

/**
 * Drives a backend from the stream of node-local states, with kube-proxy's cadence: changes are
 * coalesced between syncs, syncs are spaced by `minSyncPeriodMs`, a failure is retried as a full
 * sync after `syncPeriodMs`, and a full sync runs at least every `fullSyncPeriodMs`.
 *
 * Trigger times of a failed sync are KEPT and observed when a later sync succeeds, which upstream
 * does not do (it loses them, under-reporting programming latency exactly when it is worst): the
 * latency metric then includes the failed attempts and the retry delay, as it should.
 *
 * Every `syncPeriodMs` the loop asks the backend to `check` the kernel (upstream's iptables
 * proxier polls its canary chains at that period): drift found forces a full sync at once, and the
 * kinds the sync reports `repaired` are counted (`kpng_sync_drift_repairs_total`). The check runs
 * in the runner, so never during a sync, and only once a sync has succeeded (before that, the
 * kernel holds nothing of ours to check).
 *
 * Beside that upstream-compatible figure, the loop notes when each Service change was offered
 * (this process's monotonic clock: within one event-loop turn of the watch event in an in-process
 * kpng, the state's arrival for a stream-connected agent) and observes
 * `kpng_network_programming_from_event_seconds` when the rules covering it are applied: one sample
 * per change per family of the Service that the backend programs. It needs no trigger time, has no
 * whole-second rounding, and the difference from the upstream figure is the API side's share.
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
  /** Per Service, when its changes were offered (monotonic ms), not yet covered by a successful sync. */
  private received = new Map<ServiceKey, number[]>();
  /** When the first state since the running (or last) sync read its changes was offered (monotonic ms). */
  private firstOfferSinceTake: number | undefined;
  /** The NodePort addresses of the last successful sync (`nodePortAddresses` option). */
  private syncedNodePortAddresses: NodePortAddresses | undefined;
  /** The state of the last successful sync: where a removed Service's families are looked up. */
  private synced: NodeLocalState | undefined;
  /** The check timer fired: the next run checks the kernel for drift first. */
  private checkDue = false;
  private checkTimer: { cancel(): void } | undefined;
  private stopped = false;
  /** `kubeproxy_sync_proxy_rules_no_local_endpoints_total`, counted from the changed Services. */
  private readonly noLocal = new NoLocalEndpointsCounter();

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
    const at = this.opts.clock.monotonic();
    this.firstOfferSinceTake ??= at;
    for (const key of changes.updatedServices ?? []) {
      addTriggerTimes(this.received, key, [at]);
    }
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
    this.armCheck();
  }

  /** Stops syncing; resolves once the sync in progress, if any, has finished. */
  stop(): Promise<void> {
    this.stopped = true;
    this.checkTimer?.cancel();
    return this.runner.stop();
  }

  private armCheck(): void {
    if (this.opts.backend.check === undefined || this.stopped) return;
    this.checkTimer = this.opts.clock.setTimeout(() => {
      this.checkDue = true;
      this.runner.run();
      this.armCheck();
    }, this.opts.syncPeriodMs);
  }

  /** Asks the backend whether its rules drifted; a failing check is logged and found nothing. */
  private async checkDrift(): Promise<boolean> {
    const check = this.opts.backend.check;
    if (check === undefined || this.synced === undefined || this.needFullSync) return false;
    try {
      const kinds = await check.call(this.opts.backend);
      if (kinds.length === 0) return false;
      this.log.warn('rules drifted (changed by another program); repairing them with a full sync', { kinds });
      return true;
    } catch (e) {
      this.log.warn('drift check failed; the next sync will tell', { err: toError(e) });
      return false;
    }
  }

  private markQueued(): void {
    const now = this.opts.clock.now();
    for (const family of this.families) {
      this.opts.metrics.syncQueued(family, now);
      this.opts.health.queuedUpdate(family);
    }
  }

  private async syncOnce(): Promise<void> {
    if (!this.latest) return; // nothing to program before the first state
    const { backend, clock } = this.opts;
    if (this.checkDue) {
      this.checkDue = false;
      if (await this.checkDrift()) this.needFullSync = true;
      else if (!this.needFullSync && this.pending.isEmpty() && !this.fullSyncDue(clock.monotonic())) return;
    }
    // Read only now: a state offered while the check ran is the one the pending changes belong to.
    const latest = this.latest;
    const changes = this.pending.take();
    this.firstOfferSinceTake = undefined;
    const received = this.received;
    this.received = new Map();
    const startedAt = clock.monotonic();
    let full = this.needFullSync || this.fullSyncDue(startedAt) || changes.nodeChanged || !changes.updatedServices;
    let repaired: readonly string[] = [];
    let state = latest.state;
    try {
      if (this.opts.nodePortAddresses) {
        const nodePortAddresses = await this.opts.nodePortAddresses(state.node);
        if (!sameNodePortAddresses(nodePortAddresses, this.syncedNodePortAddresses)) full = true;
        state = { ...state, node: { ...state.node, nodePortAddresses } };
      }
      const applied = this.opts.changesPending?.syncStarting();
      const outcome = await backend.sync({
        state,
        changes,
        full,
        revision: latest.revision,
        families: this.families,
      });
      applied?.();
      repaired = outcome?.repaired ?? [];
    } catch (e) {
      const seconds = (clock.monotonic() - startedAt) / 1000;
      for (const family of this.families) this.opts.metrics.syncAttemptFailed(family, seconds, full);
      this.pending.restore(changes);
      for (const [key, times] of this.received) addTriggerTimes(received, key, times);
      this.received = received;
      this.needFullSync = true;
      this.opts.metrics.syncFailed(backend.name);
      if (e instanceof KpngError && e.code === ErrorCodes.WriteTimedOut)
        this.opts.metrics.syncWriteTimedOut(backend.name);
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
    this.syncedNodePortAddresses = state.node.nodePortAddresses;
    if (full) this.lastFullSyncStart = startedAt;
    const durationMs = clock.monotonic() - startedAt;
    this.recordSuccess(latest.state, changes, full, durationMs / 1000);
    for (const kind of repaired) this.opts.metrics.driftRepaired(backend.name, kind);
    this.recordFromEvent(latest.state, received);
    this.log.info('synced', {
      revision: latest.revision,
      full,
      services: latest.state.services.length,
      changedServices: changes.updatedServices?.size ?? 'all',
      durationMs,
      ...(repaired.length > 0 ? { repaired } : {}),
    });
    await this.opts.serviceHealth?.sync(
      latest.state.services,
      () => this.opts.health.isHealthy(),
      state.node,
      full || changes.nodeChanged ? undefined : changes.updatedServices,
    );
  }

  private fullSyncDue(now: number): boolean {
    return this.lastFullSyncStart === undefined || now - this.lastFullSyncStart >= this.opts.fullSyncPeriodMs;
  }

  private recordFromEvent(state: NodeLocalState, received: ReadonlyMap<ServiceKey, readonly number[]>): void {
    if (received.size > 0) {
      const now = this.opts.clock.monotonic();
      // Binary searches of the sorted states, not maps of every Service: a sync after one change
      // stays proportional to the change (two maps were most of a one-change sync at s50k: docs/PERFORMANCE.md).
      const previous = this.synced?.services ?? [];
      for (const [key, times] of received) {
        const service = findService(state.services, key) ?? findService(previous, key); // a removed Service: the families it had
        if (!service) continue;
        for (const family of this.families) {
          if (service.families[family] === undefined) continue;
          for (const t of times) this.opts.metrics.programmingFromEvent(family, Math.max(0, now - t) / 1000);
        }
      }
    }
    this.synced = state;
  }

  private recordSuccess(state: NodeLocalState, changes: StateChanges, full: boolean, seconds: number): void {
    const { metrics, health, clock } = this.opts;
    const now = clock.now();
    // A full sync counts every Service again (as the backend rewrote them all); a partial one only
    // what changed since the last successful sync (failed syncs' changes are still in `changes`).
    this.noLocal.update(state, full || changes.nodeChanged ? undefined : changes.updatedServices);
    for (const family of this.families) {
      metrics.syncSucceeded(family, seconds, full, now);
      // Upstream's per-family proxier only sees its family's EndpointSlices, so a trigger time is
      // observed once per family the Service has, not once per family the proxy runs.
      // A Service no longer (or not yet) in the state counts once, under the node's primary family.
      for (const [key, times] of changes.triggerTimes) {
        const families = findService(state.services, key)?.families;
        if (families ? families[family] === undefined : family !== this.families[0]) continue;
        for (const t of times) metrics.programmingLatency(family, Math.max(0, now - t) / 1000);
      }
      const noLocal = this.noLocal.count(family);
      metrics.noLocalEndpoints('internal', family, noLocal.internal);
      metrics.noLocalEndpoints('external', family, noLocal.external);
      health.updated(family);
      // A state offered while this sync ran is not in it: still pending, since it was offered (a
      // long sync, e.g. one with the compat start-up clean-up, must not hide a change that the
      // next, failing, syncs never land).
      if (this.firstOfferSinceTake !== undefined) health.queuedUpdate(family, this.firstOfferSinceTake);
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

function sameNodePortAddresses(a: NodePortAddresses | undefined, b: NodePortAddresses | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return sameFamily(a.IPv4, b.IPv4) && sameFamily(a.IPv6, b.IPv6);
}

function sameFamily(a: NodePortAddresses['IPv4'], b: NodePortAddresses['IPv4']): boolean {
  if (a === 'all' || b === 'all') return a === b;
  return a.length === b.length && a.every((address, i) => address === b[i]);
}
