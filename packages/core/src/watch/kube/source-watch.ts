import { Watch, type KubeConfig } from '@kubernetes/client-node';
import { trimObject } from './trim-object.js';

type WatchArgs = Parameters<Watch['watch']>;

/**
 * client-node's Watch with three additions the kube source needs:
 * - `onOpening` runs just before each watch request. The informer calls `watch` right after it has
 *   applied a LIST, so the first call marks the end of the initial list (client-node has no
 *   "synced" signal of its own).
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
    private readonly onOpening: () => void,
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
    this.onOpening();
    const trimmed: WatchArgs[2] = (phase, obj, watchObj) => callback(phase, trimObject(obj), watchObj);
    return super.watch(path, { ...queryParams, allowWatchBookmarks: true }, trimmed, done);
  }
}
