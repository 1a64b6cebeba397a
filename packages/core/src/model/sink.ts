import type { ModelEvent, ObjectKind } from './types.js';

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
