import type { KubeObject } from './objects.js';

export type ObjectEventType = 'added' | 'modified' | 'deleted';

/** One change to a watched object, stamped with the moment this client received it. */
export interface ObjectEvent<T extends KubeObject> {
  readonly type: ObjectEventType;
  readonly object: T;
  /** Client clock, epoch ms (sub-millisecond): when the event arrived, not when the API server stamped it. */
  readonly receivedAt: number;
  /** Part of the first LIST: the object existed before the client started watching. */
  readonly initial: boolean;
}

export interface StreamHandler<T extends KubeObject> {
  event(event: ObjectEvent<T>): void;
  /** The first LIST has been delivered: later events are live changes. */
  synced(): void;
}

/**
 * A list+watch of one kind of object. `run` delivers events until `signal` aborts; it rejects only
 * for failures that retrying cannot fix (403 Forbidden: missing RBAC).
 */
export interface ObjectStream<T extends KubeObject> {
  run(handler: StreamHandler<T>, signal: AbortSignal): Promise<void>;
}
