import type { ChangeSet } from '../model/change-set.js';
import { GlobalModel, type GlobalSnapshot, type ModelObserver } from '../model/global-model.js';
import type { NodeName, ServiceKey } from '../model/types.js';
import { NodeViewer } from '../nodeview/node-viewer.js';
import type { NodeLocalState, StateChanges } from '../nodeview/types.js';
import { systemClock, type Clock } from '../util/clock.js';
import { log } from '../util/log.js';

/** Where the core publishes each new state (the stream hubs, an in-process sync loop...). */
export interface StateConsumer<S> {
  /** `revision` is the global model's revision the state was computed from; it only grows. */
  publish(state: S, changes: StateChanges, revision: number): void;
}

export interface CoreOptions {
  readonly nodeName: NodeName;
  readonly clock?: Clock;
  readonly modelObserver?: ModelObserver;
  /** Observes the node-local recompute time of each revision, in seconds. */
  readonly onNodeViewDuration?: (seconds: number) => void;
  /**
   * kube-proxy's `configSyncPeriod` (informer resync, default 15m): this often, every object is run
   * through the node view again (`resync`). Unset: never.
   */
  readonly resyncPeriodMs?: number;
  /** Each periodic resync: whether it found (and published) a difference. */
  readonly onResync?: (changed: boolean) => void;
}

/**
 * The core's one-way pipeline for one node: model changes -> incremental node-local view ->
 * every registered consumer. Also republishes the global model for central-core serving.
 */
export class Core {
  readonly model: GlobalModel;
  readonly #viewer: NodeViewer;
  readonly #clock: Clock;
  readonly #local = new Set<StateConsumer<NodeLocalState>>();
  readonly #global = new Set<StateConsumer<GlobalSnapshot>>();
  #published = false;
  #resyncTimer: { cancel(): void } | undefined;

  constructor(private readonly options: CoreOptions) {
    this.#clock = options.clock ?? systemClock;
    this.model = new GlobalModel(this.#clock.now(), options.modelObserver);
    this.#viewer = new NodeViewer(options.nodeName);
    this.model.onChange((changes) => this.#onModelChange(changes));
    this.#scheduleResync();
  }

  /**
   * Upstream's informer resync re-delivers every cached object to the handlers. Here: the node view
   * recomputes every Service and the Node from the model; with the content-compared model and
   * view this finds nothing unless the incremental view drifted from the model, in which case the
   * difference is published as an ordinary change (and the sync that follows repairs the rules).
   * Returns whether anything changed. Nothing happens before the first state was published.
   */
  resync(): boolean {
    if (!this.#published) return false;
    const { state, updatedServices } = this.#viewer.update(this.model, 'all', true);
    const nodeChanged = state.node !== this.#lastNode;
    if (updatedServices.size === 0 && !nodeChanged) return false;
    this.#lastNode = state.node;
    log.warn('resync found the node view out of date; republishing', {
      services: updatedServices.size,
      nodeChanged,
    });
    const changes: StateChanges = { updatedServices, triggerTimes: new Map(), nodeChanged };
    for (const c of this.#local) c.publish(state, changes, this.model.revision);
    return true;
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
      this.options.onResync?.(this.resync());
      this.#scheduleResync();
    }, period);
  }

  get nodeName(): NodeName {
    return this.options.nodeName;
  }

  /** The latest node-local state, once every source kind has synced. */
  get state(): NodeLocalState | undefined {
    return this.#published ? this.#viewer.state : undefined;
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

    const first = !this.#published;
    // The service CIDRs are part of the node's view (LocalNode.serviceCIDRs): a change is a node change.
    const nodeChanged = first || changes.nodes.has(this.options.nodeName) || changes.serviceCIDRs;
    const t0 = this.#clock.monotonic();
    const { state, updatedServices } = this.#viewer.update(this.model, first ? 'all' : changes.services, nodeChanged);
    this.options.onNodeViewDuration?.((this.#clock.monotonic() - t0) / 1000);
    if (!first && updatedServices.size === 0 && state.node === this.#lastNode) return;
    this.#published = true;
    this.#lastNode = state.node;

    const triggerTimes = new Map<ServiceKey, readonly number[]>();
    for (const [svc, times] of changes.triggerTimes) if (updatedServices.has(svc)) triggerTimes.set(svc, times);
    const localChanges: StateChanges = {
      ...(first ? {} : { updatedServices }),
      triggerTimes,
      nodeChanged,
    };
    log.debug(2, 'node-local state updated', {
      revision: changes.revision,
      services: state.services.length,
      updated: updatedServices.size,
    });
    for (const c of this.#local) c.publish(state, localChanges, changes.revision);
  }

  #lastNode: NodeLocalState['node'] | undefined;
}
