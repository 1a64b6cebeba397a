import type { ModelEvent } from '../../model/types.js';
import { reportInvalid } from '../convert/index.js';
import { deletionOf, type KindAdapter } from './kinds.js';
import { upsertOf } from './listed-object.js';

/**
 * Turns one informer's add/update/delete callbacks into model events, remembering which objects
 * the model holds. An invalid new version is skipped and the last good one stays in the model; an
 * object that becomes ignorable (e.g. a Service turned ExternalName) is deleted from the model; the
 * deletion of an object the model never held produces nothing.
 */
export class ObjectTracker {
  /** Raw `namespace/name` of each accepted object, with the event that removes it from the model. */
  private readonly accepted = new Map<string, ModelEvent>();

  constructor(
    private readonly adapter: KindAdapter,
    private readonly report: typeof reportInvalid = reportInvalid,
  ) {}

  upserted(obj: unknown): ModelEvent | undefined {
    const key = this.adapter.keyOf(obj);
    const result = upsertOf(obj, this.adapter);
    if (!result.ok) {
      this.report(this.adapter.kind, key, result.errors);
      return undefined;
    }
    if (result.value === null) return this.forget(key);
    this.accepted.set(key, deletionOf(result.value));
    return result.value;
  }

  deleted(obj: unknown): ModelEvent | undefined {
    return this.forget(this.adapter.keyOf(obj));
  }

  /** How many objects of this kind the model holds through this tracker. */
  get size(): number {
    return this.accepted.size;
  }

  private forget(key: string): ModelEvent | undefined {
    const deletion = this.accepted.get(key);
    this.accepted.delete(key);
    return deletion;
  }
}
