import { Watch, type KubeConfig } from '@kubernetes/client-node';
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

/**
 * client-node's Watch with the additions the kube source needs:
 * - `hooks` report each request, and when a watch opens and ends (reconnect metrics and logs).
 * - Bookmarks are requested: they keep the resume point current while nothing we select changes,
 *   so a reconnect after a compaction resumes instead of relisting.
 * - Objects lose their `managedFields` before the informer caches them (`trimObject`).
 * - Once the source is stopping, no new watch is opened: an informer whose LIST was in flight when
 *   it was stopped would otherwise open one that nobody closes.
 */
export class SourceWatch extends Watch {
  constructor(
    config: KubeConfig,
    private readonly stopping: AbortSignal,
    private readonly hooks: WatchHooks,
  ) {
    super(config);
  }

  override async watch(
    path: WatchArgs[0],
    queryParams: WatchArgs[1],
    callback: WatchArgs[2],
    done: WatchArgs[3],
  ): Promise<AbortController> {
    if (this.stopping.aborted) {
      const closed = new AbortController();
      closed.abort();
      return closed;
    }
    this.hooks.opening();
    const trimmed: WatchArgs[2] = (phase, obj, watchObj) => callback(phase, trimObject(obj), watchObj);
    // client-node calls `done` before `watch` returns when the request fails (refused, or not 200),
    // and later when an open watch ends: whether it was called by then tells the two apart.
    let open = false;
    let ended = false;
    const reportingDone: WatchArgs[3] = (err) => {
      ended = true;
      if (open) this.hooks.closed();
      done(err);
    };
    const controller = await super.watch(path, { ...queryParams, allowWatchBookmarks: true }, trimmed, reportingDone);
    if (!ended) {
      open = true;
      this.hooks.opened();
    }
    return controller;
  }
}
