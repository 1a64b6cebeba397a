import { createInterface } from 'node:readline';
import { TurnBudget } from '@kpng/kit';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { apiGet, statusError } from './api-request.js';
import { ListBody } from './list-body.js';
import type { RequestRateLimiter } from './request-rate-limiter.js';
import { trimObject } from './trim-object.js';

export { ApiStatusError } from './api-request.js';

/** A collection path with its selectors: what one informer lists and watches. */
export interface Collection {
  /** Cluster-wide collection path, e.g. `/api/v1/services`. */
  readonly path: string;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
}

/** A LIST's answer: its resourceVersion, and its items as `prepare` made them. */
export interface ListAnswer<T> {
  readonly resourceVersion: string;
  readonly items: T[];
}

/** Items a LIST page asks for: client-go's pager's default, which the reflector uses. */
export const LIST_PAGE_SIZE = 500;

/**
 * LIST a collection as raw JSON, in pages of LIST_PAGE_SIZE (`limit`, then `continue`) as
 * client-go's reflector reads it through its pager: the API server answers each page from the
 * same snapshot, so the pages join to one consistent list at the last page's resourceVersion, and
 * no answer is bigger than a page. A `continue` token the server no longer honours (410 Expired,
 * after a compaction) makes the list start again whole, without pages, as the pager's
 * FullListIfExpired does. The generated API clients would deserialize every item into
 * model classes (Dates instead of strings, renamed fields), so listed objects would differ in shape
 * from watched ones, which arrive as parsed JSON; converting one shape only is simpler and cheaper.
 * The body is parsed item by item as it arrives (`ListBody`): a big list costs many short turns
 * of the event loop, not one long one. `prepare` turns each parsed item into what the list holds
 * (the informer: its identity and conversion), so that the raw object is garbage at once.
 *
 * `resourceVersion` is the reflector's (`relistResourceVersion`): `'0'` for a first list, which
 * the API server answers from its watch cache, whole (the cache ignores `limit`: one request
 * instead of one per 500 objects, each through the request throttle); a later version for a relist,
 * asked without `limit` so that the cache answers it too (at least as fresh as that version: never
 * back in time); `''` for a consistent list from etcd, in pages. A `continue` page carries no
 * version (the server refuses both together).
 */
export async function listRaw<T = KubernetesObject>(
  kc: KubeConfig,
  collection: Collection,
  signal: AbortSignal,
  limiter?: RequestRateLimiter,
  prepare: (item: KubernetesObject) => T = (item) => item as T,
  resourceVersion = '',
): Promise<ListAnswer<T>> {
  const { path, labelSelector, fieldSelector } = collection;
  const items: T[] = [];
  const onItem = (item: unknown): void => void items.push(prepare(trimObject(item as KubernetesObject)));
  const fromCache = resourceVersion !== '' && resourceVersion !== '0';
  let limit: string | undefined = fromCache ? undefined : String(LIST_PAGE_SIZE);
  let next: string | undefined;
  for (;;) {
    const version = next === undefined && resourceVersion !== '' ? resourceVersion : undefined;
    const query = { labelSelector, fieldSelector, limit, continue: next, resourceVersion: version };
    const { url, res } = await apiGet(kc, path, query, signal, limiter);
    if (res.statusCode === 410 && next !== undefined) {
      res.resume();
      items.length = 0;
      [limit, next] = [undefined, undefined];
      continue;
    }
    if (res.statusCode !== 200) throw await statusError('LIST', url, res);
    const body = new ListBody();
    res.setEncoding('utf8');
    // Chunks already buffered arrive back to back in one turn: give the event loop one every 10 ms.
    const budget = new TurnBudget(10);
    for await (const chunk of res) {
      body.push(chunk as string, onItem);
      if (budget.due()) await budget.yield();
    }
    const metadata = (body.end() as { metadata?: { resourceVersion?: unknown; continue?: unknown } }).metadata;
    if (typeof metadata?.continue === 'string' && metadata.continue !== '') {
      next = metadata.continue;
      continue;
    }
    return { resourceVersion: typeof metadata?.resourceVersion === 'string' ? metadata.resourceVersion : '', items };
  }
}

/** What one WATCH request reports, in this order: `opened` (answered 200), `event`s, `ended` once. */
export interface WatchCallbacks {
  opened(): void;
  event(type: string, object: KubernetesObject): void;
  /** The request failed or the stream ended; `null` for a clean end. Also called before `watchRaw` returns. */
  ended(err: unknown): void;
}

/** client-node sets the same keep-alive on its watch sockets. */
const KEEPALIVE_MS = 30_000;

/**
 * One WATCH request from `resourceVersion`, made with `apiGet` like the LISTs rather than with
 * client-node's `Watch`, because the retry schedule needs what client-node drops: a failed answer
 * keeps its `Retry-After` (`ApiStatusError`), and the informer learns when the watch opened (reconnect
 * metrics and logs). Bookmarks are requested (they keep the resume point current while nothing we
 * select changes, so a reconnect after a compaction resumes instead of relisting); objects lose
 * their `managedFields` before anything sees them (`trimObject`). Resolves with the controller that
 * ends the request.
 */
export async function watchRaw(
  kc: KubeConfig,
  collection: Collection,
  resourceVersion: string,
  callbacks: WatchCallbacks,
  limiter?: RequestRateLimiter,
): Promise<AbortController> {
  const controller = new AbortController();
  let ended = false;
  const finish = (err: unknown) => {
    if (ended) return;
    ended = true;
    controller.abort();
    callbacks.ended(err);
  };
  try {
    const { path, labelSelector, fieldSelector } = collection;
    const query = { resourceVersion, labelSelector, fieldSelector, watch: 'true', allowWatchBookmarks: 'true' };
    const { url, res } = await apiGet(kc, path, query, controller.signal, limiter);
    if (res.statusCode !== 200) throw await statusError('WATCH', url, res);
    res.socket?.setKeepAlive(true, KEEPALIVE_MS);
    callbacks.opened();
    // A stream cut short ends with an 'error' (ECONNRESET) before 'close'; a clean end only closes.
    res.on('error', finish);
    res.on('close', () => finish(res.complete ? null : prematureClose()));
    const lines = createInterface({ input: res, crlfDelay: Infinity });
    lines.on('error', finish); // readline re-emits the input's errors
    lines.on('line', (line) => {
      let event: { type: string; object: unknown };
      try {
        event = JSON.parse(line) as typeof event;
      } catch {
        return; // as client-node: a line that is not JSON is skipped
      }
      callbacks.event(event.type, trimObject(event.object as KubernetesObject));
    });
  } catch (err) {
    finish(err);
  }
  return controller;
}

/** What node-fetch reports for a body cut short (classified as `unreachable`). */
function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}
