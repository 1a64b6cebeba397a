import type { ModelEvent, ObjectKind } from '../../../model/types.js';
import type { ModelSink } from '../../source.js';

/**
 * A ModelSink that keeps every batch, the resulting model (`kind key` -> last upsert), and a
 * snapshot of that model at each `synced` call, so tests can check what was there when it fired.
 */
export class RecordingSink implements ModelSink {
  readonly batches: (readonly ModelEvent[])[] = [];
  readonly syncs: Array<{ kind: ObjectKind; keys: readonly string[]; atBatch: number; context: unknown }> = [];
  private readonly model = new Map<string, ModelEvent>();

  /** Called at each `synced`, its result stored with the sync (e.g. the fake server's request mark). */
  constructor(private readonly contextAtSync: () => unknown = () => undefined) {}

  apply(events: readonly ModelEvent[]): void {
    this.batches.push(events);
    for (const e of events) {
      const id = `${e.kind} ${e.key}`;
      if (e.op === 'upsert') this.model.set(id, e);
      else this.model.delete(id);
    }
  }

  synced(kind: ObjectKind): void {
    this.syncs.push({ kind, keys: this.keys(kind), atBatch: this.batches.length, context: this.contextAtSync() });
  }

  get events(): readonly ModelEvent[] {
    return this.batches.flat();
  }

  syncedKinds(): readonly ObjectKind[] {
    return this.syncs.map((s) => s.kind);
  }

  /** Keys the model holds, optionally of one kind, sorted. */
  keys(kind?: ObjectKind): readonly string[] {
    return [...this.model.values()]
      .filter((e) => kind === undefined || e.kind === kind)
      .map((e) => e.key as string)
      .sort();
  }

  get(kind: ObjectKind, key: string): ModelEvent | undefined {
    return this.model.get(`${kind} ${key}`);
  }
}
