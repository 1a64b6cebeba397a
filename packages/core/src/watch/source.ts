import type { ModelEvent, ObjectKind } from '../model/types.js';

/** Where a source delivers converted, validated changes: the global model. */
export interface ModelSink {
  /** Apply a batch of changes as one transaction (one revision at most). */
  apply(events: readonly ModelEvent[]): void;
  /** The source has delivered its complete initial list of `kind`. Nothing is served before all kinds are synced. */
  synced(kind: ObjectKind): void;
  /**
   * The source lost track of what it delivered (e.g. a relist): the next `apply` carries the complete
   * set of `kind`, and objects it does not mention must be deleted.
   */
  replaceAll?(kind: ObjectKind, events: readonly ModelEvent[]): void;
}

/** A producer of model events: `kube` (API server), `file` (manifests), `api` (another core). */
export interface Source {
  readonly name: string;
  /** Runs until `signal` aborts. Resolves once stopped. Restarts its own watches on failure. */
  run(sink: ModelSink, signal: AbortSignal): Promise<void>;
}
