import { createInterface } from 'node:readline';
import type { KubeConfig } from '@kubernetes/client-node';
import { Watch } from './client-node-classes.js';
import { apiGet, statusError } from './api-request.js';
import type { RequestRateLimiter } from './request-rate-limiter.js';
import { trimObject } from './trim-object.js';

type WatchArgs = Parameters<Watch['watch']>;

/** What the informer learns about each watch request. */
export interface WatchHooks {
  /**
   * Just before each watch request. The informer calls `watch` right after it has applied a LIST,
   * so the first call marks the end of the initial list (client-node has no "synced" signal).
   */
  opening(): void;
  /** The request was answered 200: the watch is open. */
  opened(): void;
  /** An open watch ended, for whatever reason. */
  closed(): void;
}

/** client-node sets the same keep-alive on its watch sockets. */
const KEEPALIVE_MS = 30_000;

/**
 * The WATCH request for client-node's informer (its `Watch` contract: `callback` per event, `done`
 * once, before `watch` returns when the request fails), made with `apiGet` like our LISTs rather
 * than client-node's fetch, because the retry schedule needs what client-node drops:
 * - a failed answer keeps its `Retry-After` (`ApiStatusError`), which the reconnect rounds honour;
 * - `hooks` report each request, and when a watch opens and ends (reconnect metrics and logs).
 * Also: bookmarks are requested (they keep the resume point current while nothing we select
 * changes, so a reconnect after a compaction resumes instead of relisting); objects lose their
 * `managedFields` before the informer caches them (`trimObject`); once the source is stopping, no
 * new watch is opened (an informer whose LIST was in flight would open one that nobody closes).
 */
export class SourceWatch extends Watch {
  constructor(
    config: KubeConfig,
    private readonly stopping: AbortSignal,
    private readonly hooks: WatchHooks,
    private readonly limiter?: RequestRateLimiter,
  ) {
    super(config);
  }

  override async watch(
    path: WatchArgs[0],
    queryParams: WatchArgs[1],
    callback: WatchArgs[2],
    done: WatchArgs[3],
  ): Promise<AbortController> {
    const controller = new AbortController();
    if (this.stopping.aborted) {
      controller.abort();
      return controller;
    }
    this.hooks.opening();
    let open = false;
    let ended = false;
    const finish = (err: unknown) => {
      if (ended) return;
      ended = true;
      controller.abort();
      if (open) this.hooks.closed();
      done(err);
    };
    try {
      const query = { ...stringValues(queryParams), watch: 'true', allowWatchBookmarks: 'true' };
      const { url, res } = await apiGet(this.config, path, query, controller.signal, this.limiter);
      if (res.statusCode !== 200) throw await statusError('WATCH', url, res);
      res.socket?.setKeepAlive(true, KEEPALIVE_MS);
      open = true;
      this.hooks.opened();
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
        callback(event.type, trimObject(event.object), event);
      });
    } catch (err) {
      finish(err);
    }
    return controller;
  }
}

function stringValues(params: WatchArgs[1]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(params ?? {}))
    if (value !== undefined && value !== null) out[key] = String(value);
  return out;
}

/** What node-fetch reports for a body cut short (classified as `unreachable`). */
function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}
