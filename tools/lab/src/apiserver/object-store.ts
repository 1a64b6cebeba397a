import { randomUUID } from 'node:crypto';
import { managedFieldsFor } from './managed-fields.js';
import { resourceForKind, resourceId, type ResourceType } from './resources.js';

/**
 * The fake API server's storage: objects per resource, one global, monotonically increasing
 * resourceVersion (like etcd's revision), and the history of changes since the last compaction so
 * that a watch can resume from any resourceVersion still in that history.
 */

export interface KubeMetadata {
  readonly name: string;
  readonly namespace?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly [field: string]: unknown;
}

/** Any object of a known kind; the store adds `resourceVersion`, `uid`, `creationTimestamp`. */
export interface KubeObject {
  readonly kind: string;
  readonly apiVersion?: string;
  readonly metadata: KubeMetadata;
  readonly [field: string]: unknown;
}

/** A stored object: metadata is always complete. */
export interface StoredObject extends KubeObject {
  readonly apiVersion: string;
  readonly metadata: KubeMetadata & {
    readonly resourceVersion: string;
    readonly uid: string;
    readonly creationTimestamp: string;
  };
}

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredChange {
  readonly rv: number;
  readonly type: ChangeType;
  readonly resource: ResourceType;
  /** The new state; for DELETED the last state, stamped with the deletion's resourceVersion. */
  readonly object: StoredObject;
  /** The state before a MODIFIED or DELETED change: watches need it to see selector transitions. */
  readonly previous?: StoredObject;
}

export class StoreError extends Error {
  override readonly name = 'StoreError';
}

function objectKey(obj: KubeObject): string {
  return `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
}

/** JSON with sorted keys: two objects with equal content give equal text. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

function contentOf(obj: KubeObject): string {
  const { resourceVersion: _rv, uid: _uid, creationTimestamp: _ct, managedFields: _mf, ...metadata } = obj.metadata;
  return canonicalJson({ ...obj, metadata });
}

/** Beyond this many changes the oldest are forgotten, as the real API server's watch cache does. */
const DEFAULT_HISTORY_LIMIT = 100_000;

export class ObjectStore {
  private rv = 0;
  /** Watches may resume from any resourceVersion >= this one. */
  private oldestWatchable = 0;
  private readonly objects = new Map<string, Map<string, StoredObject>>();
  private history: StoredChange[] = [];
  private readonly listeners = new Set<(change: StoredChange) => void>();

  constructor(
    private readonly historyLimit = DEFAULT_HISTORY_LIMIT,
    /** Give every object written without `managedFields` one entry, as a real API server does. */
    private readonly managedFields = false,
  ) {}

  get resourceVersion(): number {
    return this.rv;
  }

  create(input: KubeObject): StoredObject {
    const { resource, obj } = this.normalise(input);
    const bucket = this.bucket(resource);
    const key = objectKey(obj);
    if (bucket.has(key)) throw new StoreError(`${resource.kind} ${key} already exists`);
    const stored = this.stamp(obj, randomUUID(), new Date().toISOString().replace(/\.\d+Z$/, 'Z'));
    bucket.set(key, stored);
    this.record({ rv: this.rv, type: 'ADDED', resource, object: stored });
    return structuredClone(stored);
  }

  /** Replaces an existing object. An update that changes nothing keeps its resourceVersion and emits nothing. */
  update(input: KubeObject): StoredObject {
    const { resource, obj } = this.normalise(input);
    const bucket = this.bucket(resource);
    const key = objectKey(obj);
    const previous = bucket.get(key);
    if (!previous) throw new StoreError(`${resource.kind} ${key} not found`);
    if (contentOf(previous) === contentOf(obj)) return structuredClone(previous);
    const stored = this.stamp(obj, previous.metadata.uid, previous.metadata.creationTimestamp);
    bucket.set(key, stored);
    this.record({ rv: this.rv, type: 'MODIFIED', resource, object: stored, previous });
    return structuredClone(stored);
  }

  /** Create or update. */
  apply(input: KubeObject): StoredObject {
    const { resource, obj } = this.normalise(input);
    return this.bucket(resource).has(objectKey(obj)) ? this.update(input) : this.create(input);
  }

  delete(input: Pick<KubeObject, 'kind' | 'metadata'>): StoredObject {
    const { resource, obj } = this.normalise(input);
    const bucket = this.bucket(resource);
    const key = objectKey(obj);
    const previous = bucket.get(key);
    if (!previous) throw new StoreError(`${resource.kind} ${key} not found`);
    bucket.delete(key);
    const tombstone = this.stamp(previous, previous.metadata.uid, previous.metadata.creationTimestamp);
    this.record({ rv: this.rv, type: 'DELETED', resource, object: tombstone, previous });
    return structuredClone(tombstone);
  }

  get(resource: ResourceType, namespace: string | undefined, name: string): StoredObject | undefined {
    return this.bucket(resource).get(`${resource.namespaced ? (namespace ?? '') : ''}/${name}`);
  }

  list(resource: ResourceType, namespace?: string): readonly StoredObject[] {
    const all = [...this.bucket(resource).values()];
    return namespace === undefined ? all : all.filter((o) => o.metadata.namespace === namespace);
  }

  /** Forgets the history: resuming a watch from an older resourceVersion now fails with 410 Gone. */
  compact(): void {
    this.history = [];
    this.oldestWatchable = this.rv;
  }

  /** Changes after `rv`, or `'expired'` when they were compacted away. */
  changesSince(rv: number): readonly StoredChange[] | 'expired' {
    if (rv < this.oldestWatchable) return 'expired';
    return this.history.filter((c) => c.rv > rv);
  }

  subscribe(listener: (change: StoredChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private normalise(input: Pick<KubeObject, 'kind' | 'metadata'> & { readonly apiVersion?: string }): {
    resource: ResourceType;
    obj: KubeObject;
  } {
    const resource = resourceForKind(input.kind, input.apiVersion);
    if (!resource) throw new StoreError(`unknown kind ${String(input.kind)}`);
    if (!input.metadata?.name) throw new StoreError(`${resource.kind} without metadata.name`);
    const { namespace: _ns, ...rest } = structuredClone(input.metadata);
    const metadata = resource.namespaced ? { ...rest, namespace: input.metadata.namespace ?? 'default' } : rest;
    return { resource, obj: { ...structuredClone(input), apiVersion: resource.apiVersion, metadata } };
  }

  private stamp(obj: KubeObject, uid: string, creationTimestamp: string): StoredObject {
    this.rv += 1;
    const managed =
      this.managedFields && obj.metadata['managedFields'] === undefined
        ? { managedFields: managedFieldsFor(obj, new Date().toISOString().replace(/\.\d+Z$/, 'Z')) }
        : {};
    return {
      ...structuredClone(obj),
      apiVersion: obj.apiVersion ?? '',
      metadata: {
        ...structuredClone(obj.metadata),
        uid,
        creationTimestamp,
        resourceVersion: String(this.rv),
        ...managed,
      },
    };
  }

  private bucket(resource: ResourceType): Map<string, StoredObject> {
    const id = resourceId(resource); // per version: a v1beta1 ServiceCIDR is not a v1 one
    let bucket = this.objects.get(id);
    if (!bucket) {
      bucket = new Map();
      this.objects.set(id, bucket);
    }
    return bucket;
  }

  private record(change: StoredChange): void {
    this.history.push(change);
    if (this.history.length > this.historyLimit) {
      const forgotten = this.history.splice(0, this.history.length - this.historyLimit);
      this.oldestWatchable = forgotten[forgotten.length - 1]?.rv ?? this.oldestWatchable;
    }
    for (const listener of [...this.listeners]) listener(change);
  }
}
