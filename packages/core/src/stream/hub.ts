import { randomUUID } from 'node:crypto';
import type { StateChanges } from '../nodeview/types.js';
import { ErrorCodes, KpngError } from '../util/errors.js';
import { fullChanges, unionChanges } from './changes.js';

/** What a client names when it asks for the next state: the last one it applied. */
export interface ResumeToken {
  readonly instanceId: string;
  readonly revision: number;
}

/** One complete state handed to one client, with what changed since that client's token. */
export interface Delivery<S> {
  readonly state: S;
  readonly instanceId: string;
  readonly revision: number;
  /** The union of changes since the token's revision; `updatedServices` is absent when `full`. */
  readonly changes: StateChanges;
  /** Treat everything as changed: no token, another instance, a token older than the history, or a full change. */
  readonly full: boolean;
}

/** Anything that hands out complete states by resume token: the hub itself, or a remote stream. */
export interface StateSource<S> {
  next(after: ResumeToken | undefined, signal?: AbortSignal): Promise<Delivery<S>>;
}

export interface StateHubOptions {
  /** Defaults to a random UUID: each process (each hub) is a new instance. */
  readonly instanceId?: string;
  /** How many revisions of changes are kept for resuming clients (default 64). */
  readonly historySize?: number;
}

interface Published<S> {
  readonly state: S;
  readonly revision: number;
}

/**
 * The in-process full-state stream (ARCHITECTURE.md item 5): holds only the LATEST state, so a
 * slow consumer skips revisions instead of buffering them, and a bounded history of changes so a
 * consumer that resumes from a recent revision still learns everything that moved since.
 */
export class StateHub<S> implements StateSource<S> {
  readonly instanceId: string;
  readonly #historySize: number;
  /** Changes per revision, oldest first, at most `historySize`. */
  readonly #history: { readonly revision: number; readonly changes: StateChanges }[] = [];
  /** Revisions up to this one are no longer in the history. */
  #forgottenUpTo = 0;
  #latest: Published<S> | undefined;
  readonly #waiters = new Set<() => void>();
  #closed = false;

  constructor(options: StateHubOptions = {}) {
    this.instanceId = options.instanceId ?? randomUUID();
    this.#historySize = Math.max(1, options.historySize ?? 64);
  }

  /** 0 until the first publish. */
  get revision(): number {
    return this.#latest?.revision ?? 0;
  }

  /** `next` calls currently waiting for a newer state (clients that are up to date). */
  get waiting(): number {
    return this.#waiters.size;
  }

  get latest(): Published<S> | undefined {
    return this.#latest;
  }

  /**
   * Makes `state` the current one. `changes` are relative to the previous publish. `revision` is
   * the caller's (e.g. the global model revision the state was computed from); one that does not
   * exceed the current revision is bumped to current + 1, since clients only need it to grow.
   * Returns the revision used.
   */
  publish(state: S, changes: StateChanges, revision?: number): number {
    if (this.#closed) throw new KpngError(ErrorCodes.StreamClosed, 'state hub is closed');
    if (revision !== undefined && !Number.isSafeInteger(revision)) {
      throw new KpngError(ErrorCodes.InvalidObject, `revision ${revision} is not an integer`);
    }
    revision = Math.max(revision ?? 0, this.revision + 1);
    this.#latest = { state, revision };
    this.#history.push({ revision, changes });
    while (this.#history.length > this.#historySize) this.#forgottenUpTo = this.#history.shift()!.revision;
    const woken = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of woken) wake();
    return revision;
  }

  /**
   * The next state after `after`: at once when one exists (another instance, or a higher revision),
   * otherwise when the next publish happens. Rejects when `signal` aborts or the hub closes.
   */
  async next(after: ResumeToken | undefined, signal?: AbortSignal): Promise<Delivery<S>> {
    for (;;) {
      if (this.#closed) throw new KpngError(ErrorCodes.StreamClosed, 'state hub is closed');
      signal?.throwIfAborted();
      const delivery = this.#deliveryAfter(after);
      if (delivery) return delivery;
      await this.#published(signal);
    }
  }

  /** Wakes every waiting `next` with a StreamClosed error; later publishes and `next` calls fail. */
  close(): void {
    this.#closed = true;
    const woken = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of woken) wake();
  }

  #deliveryAfter(after: ResumeToken | undefined): Delivery<S> | undefined {
    const latest = this.#latest;
    if (!latest) return undefined;
    const sameInstance = after !== undefined && after.instanceId === this.instanceId;
    if (sameInstance && after.revision === latest.revision) return undefined;
    // A token from the future cannot be honest: start the client over rather than wait forever.
    const known = sameInstance && after.revision < latest.revision && after.revision >= this.#forgottenUpTo;
    if (!known) return this.#delivery(latest, fullChanges(this.#history.map((h) => h.changes)), true);
    const since = this.#history.filter((h) => h.revision > after.revision).map((h) => h.changes);
    const changes = unionChanges(since);
    return this.#delivery(latest, changes, changes.updatedServices === undefined);
  }

  #delivery(latest: Published<S>, changes: StateChanges, full: boolean): Delivery<S> {
    return { state: latest.state, instanceId: this.instanceId, revision: latest.revision, changes, full };
  }

  #published(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.#waiters.delete(wake);
        reject(signal!.reason);
      };
      const wake = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.#waiters.add(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
