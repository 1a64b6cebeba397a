import type { KubernetesObject } from '@kubernetes/client-node';
import type { Converted } from '../convert/index.js';
import type { KindAdapter, UpsertEvent } from './kinds.js';

/**
 * A listed object converted as soon as its JSON is parsed: its identity (what the informer's cache
 * and the model's keys read) and its conversion, without the raw object. A LIST is held whole
 * until it is applied (a relist's deletions need every listed key, and a LIST that fails half-way
 * applies nothing); raw, an s10k EndpointSlice list held that long outlives two scavenges, is
 * copied into the old generation and stays there as garbage until the next mark-compact: ~35 MB
 * of the s10k peak RSS. The conversion is a pure function of the object, so converting it here
 * rather than when the informer emits it changes no result; its problems are still reported
 * when it is emitted (`ObjectTracker.upserted`), as before.
 */
export class ListedObject implements KubernetesObject {
  readonly metadata?: NonNullable<KubernetesObject['metadata']>;
  readonly upsert: Converted<UpsertEvent | null>;

  constructor(raw: KubernetesObject, adapter: KindAdapter) {
    // Copied as they are (not checked): the informer's cache and `adapter.keyOf` read them the same
    // way they read a raw object.
    const meta = raw.metadata as Record<string, unknown> | null | undefined;
    if (meta !== undefined && meta !== null)
      this.metadata = {
        namespace: meta['namespace'],
        name: meta['name'],
        resourceVersion: meta['resourceVersion'],
      } as NonNullable<KubernetesObject['metadata']>;
    this.upsert = adapter.toUpsert(raw);
  }
}

/** The conversion of `obj`: made when it was listed, or now (a watched object). */
export function upsertOf(obj: unknown, adapter: KindAdapter): Converted<UpsertEvent | null> {
  return obj instanceof ListedObject ? obj.upsert : adapter.toUpsert(obj);
}
