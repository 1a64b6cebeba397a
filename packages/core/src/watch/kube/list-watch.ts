import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import type { Watch } from './client-node-classes.js';
import { nextTurn, type Scheduler } from '../../util/next-turn.js';

type ObjectCallback<T> = (obj: T) => void;
type ErrorCallback = (err?: unknown) => void;

/** An object's identity: what a relist's `delete` callbacks get for what it no longer holds. */
interface Identity {
  readonly metadata: {
    readonly namespace: string | undefined;
    readonly name: string | undefined;
    readonly resourceVersion: string | undefined;
  };
}

export interface ListWatchOptions {
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  /** Milliseconds of a LIST's apply per event-loop turn (default 10). */
  readonly turnBudgetMs?: number;
  readonly schedule?: Scheduler;
  /** Millisecond clock (default `performance.now`). */
  readonly now?: () => number;
}

/** Objects between two looks at the clock while a LIST is applied. */
const CLOCK_EVERY = 64;

/**
 * client-node's `ListWatch` (LIST, then WATCH from the list's resourceVersion; relist when the
 * watch ends with 410 Gone; a cache of every object, to tell adds from updates and to find what a
 * relist no longer holds), with the same callbacks in the same cases, except that a LIST is
 * applied over several turns of the event loop, `turnBudgetMs` each. client-node applies it in
 * one: at s50k, 50,000 callbacks plus a map of every object took ~250 ms, the longest stall of a
 * start-up. The watch opens only once the whole LIST was applied, so no watch event overtakes it.
 * A `stop()` while a LIST is applied ends the apply there and opens no watch.
 *
 * The cache keeps only each object's key and resourceVersion (client-node keeps the object;
 * stripping it in place left ~430 bytes of dictionary-mode properties per object, 8.5 MB at s10k),
 * so a relist's `delete` callbacks get the object's identity (namespace, name, resourceVersion),
 * not the last object seen.
 */
export class ListWatch<T extends KubernetesObject> {
  /** Every object's resourceVersion, by `namespace/name` (neither can hold a `/`). */
  #objects = new Map<string, string | undefined>();
  #resourceVersion = '';
  readonly #add: ObjectCallback<T>[] = [];
  readonly #update: ObjectCallback<T>[] = [];
  readonly #delete: ObjectCallback<T | Identity>[] = [];
  readonly #error: ErrorCallback[] = [];
  #request: AbortController | undefined;
  #stopped = false;
  readonly #budgetMs: number;
  readonly #schedule: Scheduler;
  readonly #now: () => number;

  constructor(
    private readonly path: string,
    private readonly watch: Pick<Watch, 'watch'>,
    private readonly listFn: () => Promise<KubernetesListObject<T>>,
    private readonly options: ListWatchOptions = {},
  ) {
    this.#budgetMs = options.turnBudgetMs ?? 10;
    this.#schedule = options.schedule ?? nextTurn;
    this.#now = options.now ?? (() => performance.now());
  }

  async start(): Promise<void> {
    this.#stopped = false;
    await this.#done(null);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#abortRequest();
  }

  on(verb: 'add' | 'update', cb: ObjectCallback<T>): void;
  /** The deleted object as the watch sent it, or, for what a relist no longer holds, its identity. */
  on(verb: 'delete', cb: ObjectCallback<T | Identity>): void;
  on(verb: 'error', cb: ErrorCallback): void;
  on(verb: 'add' | 'update' | 'delete' | 'error', cb: ObjectCallback<T> | ErrorCallback): void {
    if (verb === 'error') this.#error.push(cb as ErrorCallback);
    else if (verb === 'delete') this.#delete.push(cb as ObjectCallback<T | Identity>);
    else (verb === 'add' ? this.#add : this.#update).push(cb as ObjectCallback<T>);
  }

  latestResourceVersion(): string {
    return this.#resourceVersion;
  }

  /** How many objects the cache holds. */
  get size(): number {
    return this.#objects.size;
  }

  #abortRequest(): void {
    this.#request?.abort();
    this.#request = undefined;
  }

  /** client-node's `doneHandler`: the start, and the end of each watch. */
  async #done(err: unknown): Promise<void> {
    this.#abortRequest();
    const code = err as { statusCode?: unknown; code?: unknown } | null;
    if (err && (code?.statusCode === 410 || code?.code === 410)) {
      this.#resourceVersion = '';
    } else if (err) {
      for (const cb of this.#error.slice()) cb(err);
      return;
    }
    if (this.#stopped) return;
    if (!this.#resourceVersion) {
      let list: KubernetesListObject<T>;
      try {
        list = await this.listFn();
      } catch (e) {
        for (const cb of this.#error.slice()) cb(e);
        return;
      }
      if (!(await this.#applyList(list.items ?? []))) return;
      this.#resourceVersion = list.metadata?.resourceVersion || '';
      if (this.#stopped) return; // stopped during the LIST: open no watch
    }
    const query: Record<string, string> = { resourceVersion: this.#resourceVersion };
    if (this.options.labelSelector !== undefined) query['labelSelector'] = this.options.labelSelector;
    if (this.options.fieldSelector !== undefined) query['fieldSelector'] = this.options.fieldSelector;
    const request = await this.watch.watch(
      this.path,
      query,
      (phase: string, obj: T) => this.#event(phase, obj),
      (e: unknown) => void this.#done(e),
    );
    // Stopped while the watch was being opened (its answer not read yet): stop() had no request to
    // abort, so this one would stay open, a connection held after the source stopped.
    if (this.#stopped) {
      request.abort();
      return;
    }
    this.#request = request;
  }

  /**
   * A LIST replaces the cache: what it no longer holds is deleted, the rest added or updated (an
   * object whose resourceVersion did not move is left alone), a budget of turns at a time. False
   * when stopped meanwhile.
   */
  async #applyList(items: readonly T[]): Promise<boolean> {
    let since = this.#now();
    let count = 0;
    const due = async (): Promise<boolean> => {
      if (++count % CLOCK_EVERY !== 0 || this.#now() - since < this.#budgetMs) return true;
      await new Promise<void>((resolve) => this.#schedule(resolve));
      since = this.#now();
      return !this.#stopped;
    };
    const listed = new Set<string>();
    for (const obj of items) {
      listed.add(keyOf(obj));
      if (!(await due())) return false;
    }
    // Deleting the entry just visited does not disturb a Map's iteration.
    for (const [key, resourceVersion] of this.#objects) {
      if (listed.has(key)) continue;
      this.#objects.delete(key);
      const identity = identityOf(key, resourceVersion);
      for (const cb of this.#delete.slice()) cb(identity);
      if (!(await due())) return false;
    }
    for (const obj of items) {
      this.#upsert(obj);
      if (!(await due())) return false;
    }
    return true;
  }

  /** client-node's `watchHandler`. */
  #event(phase: string, obj: T): void {
    switch (phase) {
      case 'ERROR':
        if ((obj as { code?: unknown }).code === 410) this.#resourceVersion = '';
        // The watch ends next, and its end restarts it (a relist, after a 410).
        return;
      case 'ADDED':
      case 'MODIFIED':
        this.#upsert(obj);
        break;
      case 'DELETED': {
        const key = keyOf(obj);
        if (this.#objects.delete(key)) for (const cb of this.#delete.slice()) cb(obj);
        break;
      }
      default: // BOOKMARK: only its resourceVersion counts
        break;
    }
    this.#resourceVersion = obj.metadata?.resourceVersion || '';
  }

  #upsert(obj: T): void {
    const key = keyOf(obj);
    const version = obj.metadata?.resourceVersion ?? undefined;
    if (!this.#objects.has(key)) {
      this.#objects.set(key, version);
      for (const cb of this.#add.slice()) cb(obj);
    } else if (!sameVersion(this.#objects.get(key), version)) {
      this.#objects.set(key, version);
      for (const cb of this.#update.slice()) cb(obj);
    }
  }
}

function keyOf(obj: KubernetesObject): string {
  return `${obj.metadata?.namespace || ''}/${obj.metadata?.name || ''}`;
}

/** What a relist's deletion reports: the object's identity, made again from its cache entry. */
function identityOf(key: string, resourceVersion: string | undefined): Identity {
  const slash = key.indexOf('/');
  return {
    metadata: { namespace: key.slice(0, slash) || undefined, name: key.slice(slash + 1) || undefined, resourceVersion },
  };
}

/** client-node's `isSameVersion`: an object without a resourceVersion always counts as changed. */
function sameVersion(cached: string | undefined, version: string | undefined): boolean {
  return cached !== undefined && cached === version;
}
