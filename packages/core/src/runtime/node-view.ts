import type { ChangeSet } from '../model/change-set.js';
import { GlobalModel, type GlobalSnapshot, type ModelObserver } from '../model/global-model.js';
import { POLICY_KINDS, type NodeName, type ServiceKey } from '../model/types.js';
import { feedPolicyChanges, feedPolicyModel, hasPolicyChanges } from '../policy/model-feed.js';
import { PolicyView } from '../policy/policy-view.js';
import type { PolicyState } from '../policy/types.js';
import { NodeViewer, type ViewRun } from '../nodeview/node-viewer.js';
import type { NodeLocalState, StateChanges } from '../nodeview/types.js';
import { systemClock, type Clock } from '../util/clock.js';
import { log } from '../util/log.js';
import { nextTurn, type Scheduler } from '../util/next-turn.js';
import { addTriggerTimes } from '../util/trigger-times.js';

/** Where the core publishes each new state (the stream hubs, an in-process sync loop...). */
export interface StateConsumer<S> {
  /** `revision` is the global model's revision the state was computed from; it only grows. */
  publish(state: S, changes: StateChanges, revision: number): void;
}

export interface NodeViewOptions {
  readonly nodeName: NodeName;
  readonly clock?: Clock;
  readonly modelObserver?: ModelObserver;
  /** Observes the node-local recompute time of each revision, in seconds. */
  readonly onNodeViewDuration?: (seconds: number) => void;
  /**
   * Milliseconds of node-view computation per event-loop turn (default 10): a recompute of every
   * Service (the first state, a change of the node's zone or addresses) takes longer than a turn
   * should at 10,000 Services (docs/PERFORMANCE.md), so it is done in slices with a turn for health
   * and metrics in between. A view that fits in the
   * budget is published in the same turn (so always with `Infinity`: benchmarks of the work
   * itself); 0 yields after every 16 Services (tests).
   */
  readonly turnBudgetMs?: number;
  /** How the next slice is scheduled (default: `setImmediate`). */
  readonly schedule?: Scheduler;
  /**
   * kube-proxy's `configSyncPeriod` (informer resync, default 15m): this often, every object is run
   * through the node view again (`resync`). Unset: never.
   */
  readonly resyncPeriodMs?: number;
  /** Each periodic resync: whether it found (and published) a difference. */
  readonly onResync?: (changed: boolean) => void;
  /**
   * Keep the node-local policy view (NetworkPolicy enforcement): the state carries `policy` once
   * Pods, Namespaces and NetworkPolicies delivered their initial lists (the source must watch them).
   */
  readonly policy?: boolean;
}

/** Model changes not yet folded into the node view (they arrived while a view update ran). */
interface Pending {
  readonly services: Set<ServiceKey>;
  nodeChanged: boolean;
  readonly triggerTimes: Map<ServiceKey, number[]>;
  revision: number;
  /** A resync: every Service is recomputed, and what it finds is reported (`onResync`). */
  resync: boolean;
  /** Epoch ms the earliest policy change not yet published was applied (unset: none). */
  policyChangedAt?: number;
}

/**
 * The core's one-way pipeline for one node: model changes -> incremental node-local view ->
 * every registered consumer. Also republishes the global model for central-core serving.
 */
export class NodeView {
  readonly model: GlobalModel;
  readonly #viewer: NodeViewer;
  readonly #clock: Clock;
  readonly #local = new Set<StateConsumer<NodeLocalState>>();
  readonly #global = new Set<StateConsumer<GlobalSnapshot>>();
  readonly #budgetMs: number;
  readonly #schedule: Scheduler;
  #published = false;
  /** The policy view, once every policy kind synced (`NodeViewOptions.policy`). */
  #policyView: PolicyView | undefined;
  #policyState: PolicyState | undefined;
  #resyncTimer: { cancel(): void } | undefined;

  constructor(private readonly options: NodeViewOptions) {
    this.#clock = options.clock ?? systemClock;
    this.#budgetMs = options.turnBudgetMs ?? 10;
    this.#schedule = options.schedule ?? nextTurn;
    this.model = new GlobalModel(this.#clock.now(), options.modelObserver);
    this.#viewer = new NodeViewer(options.nodeName);
    this.model.onChange((changes) => this.#onModelChange(changes));
    this.#scheduleResync();
  }

  /**
   * Upstream's informer resync re-delivers every cached object to the handlers. Here: the node view
   * recomputes every Service and the Node from the model (in turns, like any large update); with the
   * content-compared model and view this finds nothing unless the incremental view drifted from the
   * model, in which case the difference is published as an ordinary change (and the sync that
   * follows repairs the rules). `onResync` is told what it found. Nothing happens before the first
   * state was published.
   */
  resync(): void {
    if (!this.#published) return;
    this.#pendingUpdate().resync = true;
    if (this.#running === undefined) this.#startViewRun();
  }

  /** Stops the periodic resync. */
  close(): void {
    this.#resyncTimer?.cancel();
    this.#resyncTimer = undefined;
  }

  #scheduleResync(): void {
    const period = this.options.resyncPeriodMs;
    if (period === undefined || period <= 0) return;
    this.#resyncTimer = this.#clock.setTimeout(() => {
      this.resync();
      this.#scheduleResync();
    }, period);
  }

  get nodeName(): NodeName {
    return this.options.nodeName;
  }

  /** The latest node-local state, once every source kind has synced. */
  get state(): NodeLocalState | undefined {
    if (!this.#published) return undefined;
    const state = this.#viewer.state;
    if (state === undefined || this.#policyState === undefined) return state;
    return { ...state, policy: this.#policyState };
  }

  /** Registers a consumer; it receives the current state at once when there is one. */
  addLocalConsumer(consumer: StateConsumer<NodeLocalState>): () => void {
    this.#local.add(consumer);
    const state = this.state;
    if (state) consumer.publish(state, { triggerTimes: new Map(), nodeChanged: true }, this.model.revision);
    return () => this.#local.delete(consumer);
  }

  addGlobalConsumer(consumer: StateConsumer<GlobalSnapshot>): () => void {
    this.#global.add(consumer);
    if (this.model.allSynced)
      consumer.publish(this.model.snapshot(), { triggerTimes: new Map(), nodeChanged: true }, this.model.revision);
    return () => this.#global.delete(consumer);
  }

  #onModelChange(changes: ChangeSet): void {
    if (this.#global.size > 0) {
      const snapshot = this.model.snapshot();
      const globalChanges: StateChanges = {
        updatedServices: changes.services,
        triggerTimes: changes.triggerTimes,
        nodeChanged: changes.nodes.size > 0,
      };
      for (const c of this.#global) c.publish(snapshot, globalChanges, changes.revision);
    }

    const pending = this.#pendingUpdate();
    if (this.options.policy === true && this.#feedPolicy(changes)) pending.policyChangedAt ??= this.#clock.now();
    for (const svc of changes.services) pending.services.add(svc);
    // The service CIDRs are part of the node's view (LocalNode.serviceCIDRs): a change is a node change.
    pending.nodeChanged ||= changes.nodes.has(this.options.nodeName) || changes.serviceCIDRs;
    for (const [svc, times] of changes.triggerTimes) {
      addTriggerTimes(pending.triggerTimes, svc, times);
    }
    pending.revision = changes.revision;
    if (this.#running === undefined) this.#startViewRun();
  }

  /**
   * Folds the transaction's Pods, Namespaces and NetworkPolicies into the policy view; the whole
   * model once every policy kind has synced (before that nothing is enforced). Whether it changed.
   */
  #feedPolicy(changes: ChangeSet): boolean {
    if (this.#policyView === undefined) {
      if (!POLICY_KINDS.every((kind) => this.model.isSynced(kind))) return false;
      this.#policyView = new PolicyView(this.options.nodeName);
      feedPolicyModel(this.#policyView, this.model);
      return true;
    }
    if (!hasPolicyChanges(changes)) return false;
    feedPolicyChanges(this.#policyView, this.model, changes);
    return true;
  }

  #pendingUpdate(): Pending {
    return (this.#pending ??= {
      services: new Set(),
      nodeChanged: false,
      triggerTimes: new Map(),
      revision: this.model.revision,
      resync: false,
    });
  }

  /** Folds what is pending into the node view: at once when it fits the turn's budget, else in slices. */
  #startViewRun(): void {
    const pending = this.#pending;
    if (pending === undefined) return;
    this.#pending = undefined;
    const first = !this.#published;
    const nodeChanged = first || pending.nodeChanged || pending.resync;
    const t0 = this.#clock.monotonic();
    const run = this.#viewer.begin(this.model, first || pending.resync ? 'all' : pending.services, nodeChanged);
    this.#running = { run, pending, first, nodeChanged, spentMs: this.#clock.monotonic() - t0 };
    this.#continueViewRun();
  }

  #continueViewRun(): void {
    const running = this.#running;
    if (running === undefined) return;
    const start = this.#clock.monotonic();
    let calls = 0;
    // The clock is read every 16 Services: reading it costs too.
    const due = (): boolean => ++calls % 16 === 0 && this.#clock.monotonic() - start >= this.#budgetMs;
    const done = running.run.step(due);
    running.spentMs += this.#clock.monotonic() - start;
    if (!done) {
      this.#schedule(() => this.#continueViewRun());
      return;
    }
    this.#running = undefined;
    this.#publishLocal(running);
    // Changes that arrived meanwhile (Services read before their change are stale): one more update.
    if (this.#pending !== undefined) this.#startViewRun();
  }

  #publishLocal({ run, pending, first, nodeChanged: recomputedNode, spentMs }: ViewRunning): void {
    const { state: serviceState, updatedServices } = run.finish();
    let policyChanged = false;
    if (this.#policyView !== undefined && pending.policyChangedAt !== undefined) {
      const update = this.#policyView.state();
      policyChanged = update.changed.length > 0 || update.changedGroups.length > 0 || this.#policyState === undefined;
      this.#policyState = update.state;
    }
    const state = this.#policyState === undefined ? serviceState : { ...serviceState, policy: this.#policyState };
    this.options.onNodeViewDuration?.(spentMs / 1000);
    const nodeDiffers = state.node !== this.#lastNode;
    const unchanged = !first && updatedServices.size === 0 && !nodeDiffers && !policyChanged;
    if (pending.resync) {
      this.options.onResync?.(!unchanged);
      if (!unchanged)
        log.warn('resync found the node view out of date; republishing', {
          services: updatedServices.size,
          nodeChanged: nodeDiffers,
        });
    }
    if (unchanged) return;
    this.#published = true;
    this.#lastNode = state.node;
    // A resync recomputes the Node too; only a Node that came out different is a node change.
    const nodeChanged = pending.resync ? first || pending.nodeChanged || nodeDiffers : recomputedNode;

    const triggerTimes = new Map<ServiceKey, readonly number[]>();
    for (const [svc, times] of pending.triggerTimes) if (updatedServices.has(svc)) triggerTimes.set(svc, times);
    const localChanges: StateChanges = {
      ...(first ? {} : { updatedServices }),
      triggerTimes,
      nodeChanged,
      ...(policyChanged && pending.policyChangedAt !== undefined ? { policyChangedAt: pending.policyChangedAt } : {}),
    };
    log.debug(2, 'node-local state updated', {
      revision: pending.revision,
      services: state.services.length,
      updated: updatedServices.size,
    });
    for (const c of this.#local) c.publish(state, localChanges, pending.revision);
  }

  #lastNode: NodeLocalState['node'] | undefined;
  #pending: Pending | undefined;
  #running: ViewRunning | undefined;
}

/** A node-view update under way, possibly over several turns. */
interface ViewRunning {
  readonly run: ViewRun;
  readonly pending: Pending;
  readonly first: boolean;
  readonly nodeChanged: boolean;
  spentMs: number;
}
