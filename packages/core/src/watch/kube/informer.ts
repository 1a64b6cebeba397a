import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { KubeWatchMetrics } from '../../metrics/kube-watch.js';
import type { ModelEvent, ObjectKind } from '../../model/types.js';
import type { Clock } from '../../util/clock.js';
import { toError } from '../../util/errors.js';
import type { Logger } from '../../util/log.js';
import { nextTurn, type Scheduler } from '../../util/next-turn.js';
import type { Converted } from '../convert/index.js';
import { ApiStatusError } from './api-request.js';
import { classifyFailure } from './failure-class.js';
import type { KindAdapter, UpsertEvent } from './kinds.js';
import type { ReconnectRounds } from './reconnect-rounds.js';
import type { RequestRateLimiter } from './request-rate-limiter.js';
import { listRaw, watchRaw, type Collection, type ListAnswer, type WatchCallbacks } from './requests.js';
import { WatchOutage } from './watch-outage.js';

/**
 * A listed object, converted as soon as its JSON is parsed: its identity and its conversion,
 * without the raw object. A LIST is held whole until it is applied (a relist's deletions need every
 * listed key, and a LIST that fails half-way applies nothing); raw, an s10k EndpointSlice list held
 * that long outlives two scavenges, is copied into the old generation and stays there as garbage
 * until the next mark-compact (the s10k peak RSS it cost: docs/PERFORMANCE.md). The conversion is a pure function of
 * the object, so converting it here rather than when it is emitted changes no result; its problems
 * are still reported when it is emitted, as a watched object's are.
 */
export interface Listed<U = UpsertEvent> {
  /** `namespace/name` as the object's metadata says (the version store's key). */
  readonly key: string;
  readonly resourceVersion: string | undefined;
  /** `adapter.keyOf` of the raw object: the model's key. */
  readonly modelKey: string;
  readonly upsert: Converted<U | null>;
}

/** The informer's two requests; `kubeRequests` makes them against an API server, tests script them. */
export interface KindRequests {
  /** `resourceVersion`: the reflector's choice (`listRaw`): '0' first, then the last version seen, '' when that is unavailable. */
  list<L>(prepare: (raw: KubernetesObject) => L, resourceVersion: string): Promise<ListAnswer<L>>;
  watch(resourceVersion: string, callbacks: WatchCallbacks): Promise<AbortController>;
}

/** LIST (bounded by `listTimeoutMs`) and WATCH of one collection, through the source's request throttle. */
export function kubeRequests(
  kubeConfig: KubeConfig,
  collection: Collection,
  options: { readonly stopping: AbortSignal; readonly listTimeoutMs: number; readonly limiter?: RequestRateLimiter },
): KindRequests {
  const { stopping, listTimeoutMs, limiter } = options;
  return {
    list: (prepare, resourceVersion) =>
      listRaw(
        kubeConfig,
        collection,
        AbortSignal.any([stopping, AbortSignal.timeout(listTimeoutMs)]),
        limiter,
        prepare,
        resourceVersion,
      ),
    watch: (resourceVersion, callbacks) => watchRaw(kubeConfig, collection, resourceVersion, callbacks, limiter),
  };
}

/** Where an informer reports an object its adapter refused (the kube source: `reportInvalid`). */
export type InvalidReport = (kind: ObjectKind, where: string, errors: readonly string[]) => void;

/**
 * What one informer needs. `U` is what the adapter makes of an object (the model's upsert event),
 * `E` what is emitted (the model's events: the upsert, and `deletionOf` it when the object goes).
 */
export interface KindInformerOptions<U = UpsertEvent, E = ModelEvent> {
  readonly adapter: KindAdapter<U>;
  /** The event that removes an accepted upsert (the model's `deletionOf`). */
  readonly deletionOf: (upsert: U) => E;
  readonly requests: KindRequests;
  /**
   * Receives each event's conversion, in order, at once when its object arrived, to run then or
   * later off the request's callback (the source's `EventBatcher`); what it returns is already
   * filtered (nothing once `stopping` aborted).
   */
  readonly emit: (convert: () => U | E | undefined) => void;
  /** Called once, when the initial list has been emitted. */
  readonly onSynced: () => void;
  readonly stopping: AbortSignal;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The retry schedule, shared with the source's other kinds. */
  readonly rounds: ReconnectRounds;
  readonly metrics?: KubeWatchMetrics;
  /** Where an invalid object is reported (the kube source: `reportInvalid`, a log line and a counter). */
  readonly report: InvalidReport;
  /**
   * A failure retrying cannot mend, for a caller that would rather give up (the test clients: a
   * 403, missing RBAC): when it answers true the informer stops instead of retrying. Default: none.
   */
  readonly fatal?: (err: unknown) => boolean;
  /** Milliseconds of a LIST's apply per event-loop turn (default 10). */
  readonly turnBudgetMs?: number;
  readonly schedule?: Scheduler;
  /** Millisecond clock for the turn budget (default `performance.now`). */
  readonly now?: () => number;
}

/** Objects between two looks at the clock while a LIST is applied. */
const CLOCK_EVERY = 64;

/**
 * One kind's informer: LIST, then WATCH from the list's resourceVersion, a store of what the
 * server holds, and what the model holds of it; kept alive through failures.
 *
 * - **List and watch** (client-go's reflector, client-node's `ListWatch`): the watch resumes from
 *   the last resourceVersion seen when it ends cleanly; a 410 Gone (an answer or an ERROR event)
 *   relists. A LIST is applied over several turns of the event loop, `turnBudgetMs` each (applied in one
 *   turn, it was the longest stall of an s50k start-up: docs/PERFORMANCE.md), and the watch opens only
 *   once the whole LIST was applied, so no watch event overtakes it. The first watch opening marks
 *   the kind synced.
 * - **Store**: each object's resourceVersion by `namespace/name` only (not the object: the model
 *   holds the converted form, one copy), to tell adds from updates, skip an update whose version
 *   did not move, and find what a relist no longer holds (deleted then).
 * - **Model tracking**: which model key each accepted object holds, with the event that removes it.
 *   An invalid new version is reported and skipped, the last good one staying in the model; an object
 *   that becomes ignorable (e.g. a Service turned ExternalName) is deleted from the model; the
 *   deletion of an object the model never held produces nothing.
 * - **Restart**: any other failure of a LIST or WATCH is retried at the next of the source's
 *   reconnect rounds: resuming the watch (the server sends what changed meanwhile), or relisting
 *   when the failure hit the list; a relist keeps the store, so only differences are emitted and
 *   the served state is never dropped.
 *
 * What it emits is its caller's: the kube source's adapters make model events; the test clients'
 * reflector (through `@kpng/core/kube-api`) emits each raw object, to stamp its arrival.
 *
 * `@kubernetes/client-node`'s own informer is not used: it applies a LIST in one turn, keeps every
 * object in its cache, drops `Retry-After`, and asks for no bookmarks (core README).
 */
export class KindInformer<U = UpsertEvent, E = ModelEvent> {
  readonly #options: KindInformerOptions<U, E>;
  readonly #outage: WatchOutage;
  readonly #budgetMs: number;
  readonly #schedule: Scheduler;
  readonly #now: () => number;
  /** Every object's resourceVersion, by `namespace/name` (neither can hold a `/`). */
  #versions = new Map<string, string | undefined>();
  /** Model key of each object the model holds, with the event that removes it. */
  readonly #inModel = new Map<string, E>();
  #resourceVersion = '';
  /**
   * The version the next LIST asks for, as client-go's reflector (`relistResourceVersion`): '0'
   * (the API server's watch cache, whole) until a list succeeded, then the last version seen (a
   * relist after a 410 is served at least that fresh), '' (a consistent list) once the server said
   * that version is unavailable.
   */
  #listFrom = '0';
  #request: AbortController | undefined;
  #stopped = false;
  #retryPending = false;
  #synced = false;

  constructor(options: KindInformerOptions<U, E>) {
    this.#options = options;
    this.#outage = new WatchOutage(options.adapter.kind, options.clock, options.logger, options.metrics);
    this.#budgetMs = options.turnBudgetMs ?? 10;
    this.#schedule = options.schedule ?? nextTurn;
    this.#now = options.now ?? (() => performance.now());
  }

  get kind() {
    return this.#options.adapter.kind;
  }

  /** How many objects the store holds, and how many of them the model holds. */
  get size(): { readonly stored: number; readonly inModel: number } {
    return { stored: this.#versions.size, inModel: this.#inModel.size };
  }

  /** The resume point: the last resourceVersion seen ('' before a LIST, or after a 410). */
  get resourceVersion(): string {
    return this.#resourceVersion;
  }

  /** Lists (or resumes the watch); resolves once the first step is taken (tests await it). */
  async start(): Promise<void> {
    this.#stopped = false;
    await this.#next(null).catch((err: unknown) => this.#failed(err));
  }

  /** Stops watching; the source cancels pending retries (its `ReconnectRounds`) first. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#outage.dispose();
    this.#abortRequest();
  }

  #abortRequest(): void {
    this.#request?.abort();
    this.#request = undefined;
  }

  get #stopping(): boolean {
    return this.#stopped || this.#options.stopping.aborted;
  }

  /** The start, and the end of each watch: relist if needed, then open the next watch. */
  async #next(err: unknown): Promise<void> {
    this.#abortRequest();
    const code = err as { statusCode?: unknown; code?: unknown } | null;
    if (err && (code?.statusCode === 410 || code?.code === 410)) this.#gone();
    else if (err) return this.#failed(err);
    if (this.#stopped) return;
    if (!this.#resourceVersion) {
      const { adapter } = this.#options;
      const prepare = (raw: KubernetesObject): Listed<U> => ({
        key: storeKey(raw),
        resourceVersion: raw.metadata?.resourceVersion ?? undefined,
        modelKey: adapter.keyOf(raw),
        upsert: adapter.toUpsert(raw),
      });
      let list: ListAnswer<Listed<U>>;
      try {
        list = await this.#options.requests.list(prepare, this.#listFrom);
      } catch (e) {
        if (this.#listFrom === '' || !unavailableVersion(e)) return this.#failed(e);
        // The version asked for is compacted away or ahead of the server's cache: list consistently, at once (the reflector does).
        this.#listFrom = '';
        try {
          list = await this.#options.requests.list(prepare, '');
        } catch (again) {
          return this.#failed(again);
        }
      }
      if (!(await this.#applyList(list.items))) return;
      this.#resourceVersion = list.resourceVersion;
      this.#listFrom = list.resourceVersion;
      if (this.#stopped) return; // stopped during the LIST: open no watch
    }
    // Once the source is stopping, no new watch: one opened now would never be closed.
    if (this.#stopping) return;
    this.#options.logger.debug(2, 'watch opening', { kind: this.kind, resourceVersion: this.#resourceVersion });
    if (!this.#synced) {
      this.#synced = true;
      this.#options.onSynced();
    }
    const request = await this.#options.requests.watch(this.#resourceVersion, {
      opened: () => {
        this.#outage.opened();
        this.#options.rounds.reachable();
      },
      event: (type, obj) => this.#event(type, obj),
      ended: (e) => {
        this.#outage.closed();
        void this.#next(e);
      },
    });
    // Stopped while the watch was being opened (its answer not read yet): stop() had no request to
    // abort, so this one would stay open, a connection held after the source stopped.
    if (this.#stopped) {
      request.abort();
      return;
    }
    this.#request = request;
  }

  /**
   * A LIST replaces the store: what it no longer holds is deleted, the rest added or updated (an
   * object whose resourceVersion did not move is left alone), a budget of turns at a time. False
   * when stopped meanwhile.
   */
  async #applyList(items: readonly Listed<U>[]): Promise<boolean> {
    let since = this.#now();
    let count = 0;
    const due = async (): Promise<boolean> => {
      if (++count % CLOCK_EVERY !== 0 || this.#now() - since < this.#budgetMs) return true;
      await new Promise<void>((resolve) => this.#schedule(resolve));
      since = this.#now();
      return !this.#stopped;
    };
    const listed = new Set<string>();
    for (const item of items) {
      listed.add(item.key);
      if (!(await due())) return false;
    }
    // Deleting the entry just visited does not disturb a Map's iteration.
    for (const key of this.#versions.keys()) {
      if (listed.has(key)) continue;
      this.#versions.delete(key);
      const modelKey = this.#options.adapter.keyOf(identityOf(key));
      this.#emit(() => this.#forget(modelKey));
      if (!(await due())) return false;
    }
    for (const item of items) {
      if (this.#stored(item.key, item.resourceVersion)) this.#emit(() => this.#accept(item.modelKey, item.upsert));
      if (!(await due())) return false;
    }
    return true;
  }

  /** One watch event (client-go's `watchHandler`). */
  #event(type: string, obj: KubernetesObject): void {
    const { adapter } = this.#options;
    switch (type) {
      case 'ERROR':
        if ((obj as { code?: unknown }).code === 410) this.#gone();
        // The watch ends next, and its end restarts it (a relist, after a 410).
        return;
      case 'ADDED':
      case 'MODIFIED':
        if (this.#stored(storeKey(obj), obj.metadata?.resourceVersion ?? undefined))
          this.#emit(() => this.#accept(adapter.keyOf(obj), adapter.toUpsert(obj)));
        break;
      case 'DELETED':
        if (this.#versions.delete(storeKey(obj))) this.#emit(() => this.#forget(adapter.keyOf(obj)));
        break;
      default: // BOOKMARK: only its resourceVersion counts
        break;
    }
    this.#resourceVersion = obj.metadata?.resourceVersion || '';
  }

  /** A 410 ended the watch: relist, from the last version seen (served at least that fresh, never back in time). */
  #gone(): void {
    if (this.#resourceVersion !== '') this.#listFrom = this.#resourceVersion;
    this.#resourceVersion = '';
  }

  /** Records an object's version; false when it is known at that very version (nothing to emit). */
  #stored(key: string, version: string | undefined): boolean {
    // An object without a resourceVersion always counts as changed (client-node's `isSameVersion`).
    if (this.#versions.has(key) && version !== undefined && this.#versions.get(key) === version) return false;
    this.#versions.set(key, version);
    return true;
  }

  #emit(convert: () => U | E | undefined): void {
    const { stopping } = this.#options;
    if (stopping.aborted) return;
    this.#options.emit(() => (stopping.aborted ? undefined : convert()));
  }

  /** The model event for a new version of the object at `modelKey` (see the class comment). */
  #accept(modelKey: string, upsert: Converted<U | null>): U | E | undefined {
    if (!upsert.ok) {
      this.#options.report(this.kind, modelKey, upsert.errors);
      return undefined;
    }
    if (upsert.value === null) return this.#forget(modelKey);
    this.#inModel.set(modelKey, this.#options.deletionOf(upsert.value));
    return upsert.value;
  }

  #forget(modelKey: string): E | undefined {
    const deletion = this.#inModel.get(modelKey);
    this.#inModel.delete(modelKey);
    return deletion;
  }

  #failed(err: unknown): void {
    // Stopping aborts the open request, which reports one more error.
    if (this.#options.stopping.aborted || this.#retryPending) return;
    if (this.#options.fatal?.(err)) {
      void this.stop();
      this.#options.logger.warn('informer failed; not retrying', { kind: this.kind, error: toError(err).message });
      return;
    }
    this.#retryPending = true;
    const failure = classifyFailure(err);
    const attempts = this.#outage.failed();
    const statusCode = (err as { statusCode?: unknown } | null)?.statusCode;
    const retryAfterMs = serverRetryAfterMs(err);
    const delayMs = this.#options.rounds.retryLater(
      failure,
      () => {
        this.#retryPending = false;
        if (!this.#options.stopping.aborted) void this.start();
      },
      retryAfterMs,
    );
    const fields = {
      kind: this.kind,
      error: toError(err).message,
      ...(typeof statusCode === 'number' ? { statusCode } : {}),
      failure,
      attempts,
      delayMs,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
    // While the server is away every attempt fails the same way, about twice a second: the first
    // failure and the "watch is back" line (with the count) say it all. Error answers are backed
    // off to at most two a minute and each may say something new.
    const { logger } = this.#options;
    if (failure === 'unreachable' && attempts > 1) logger.debug(2, 'informer failed; retrying', fields);
    else logger.warn('informer failed; retrying', fields);
  }
}

function storeKey(obj: KubernetesObject): string {
  return `${obj.metadata?.namespace || ''}/${obj.metadata?.name || ''}`;
}

/** An object's metadata made again from its store key (what a relist's deletion knows of it). */
function identityOf(key: string): { metadata: { namespace: string | undefined; name: string | undefined } } {
  const slash = key.indexOf('/');
  return { metadata: { namespace: key.slice(0, slash) || undefined, name: key.slice(slash + 1) || undefined } };
}

/** The `Retry-After` of a 429 or 5xx answer, which client-go's REST client waits for (`checkWait`). */
function serverRetryAfterMs(err: unknown): number | undefined {
  if (!(err instanceof ApiStatusError) || err.retryAfterSeconds === undefined) return undefined;
  return err.statusCode === 429 || err.statusCode >= 500 ? err.retryAfterSeconds * 1000 : undefined;
}

/**
 * A LIST refused because of the version it asked for: 410 Expired (compacted), or the API server's
 * "Too large resource version" (its cache is behind the version: a 504 Timeout whose cause says so).
 */
function unavailableVersion(err: unknown): boolean {
  const e = err as { statusCode?: unknown; message?: unknown } | null;
  if (e?.statusCode === 410) return true;
  return e?.statusCode === 504 && typeof e.message === 'string' && /too large resource version/i.test(e.message);
}
