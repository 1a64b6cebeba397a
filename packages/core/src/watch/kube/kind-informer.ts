import { ListWatch, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { ModelEvent } from '../../model/types.js';
import type { Clock } from '../../util/clock.js';
import { toError } from '../../util/errors.js';
import type { Logger } from '../../util/log.js';
import type { KindAdapter } from './kinds.js';
import { listRaw } from './list-request.js';
import { ObjectTracker } from './object-tracker.js';
import { RestartBackoff, type BackoffOptions } from './restart-backoff.js';
import { SourceWatch } from './source-watch.js';

export interface KindInformerOptions {
  readonly kubeConfig: KubeConfig;
  readonly adapter: KindAdapter;
  /** Cluster-wide collection path, e.g. `/api/v1/services`. */
  readonly path: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Receives converted events (already filtered: nothing arrives once `stopping` aborted). */
  readonly emit: (event: ModelEvent) => void;
  /** Called once, when the initial list has been emitted. */
  readonly onSynced: () => void;
  readonly stopping: AbortSignal;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly backoff?: BackoffOptions;
  readonly listTimeoutMs: number;
}

/**
 * One client-node informer (LIST then WATCH, relisting on 410 Gone by itself), kept alive: on any
 * other failure client-node stops the informer for good, so it is restarted here after a backoff.
 * A restart resumes the watch from the last resourceVersion seen, or relists when the failure hit
 * the list; either way client-node reports what changed meanwhile, deletions included.
 */
export class KindInformer {
  private readonly informer: ListWatch<KubernetesObject>;
  private readonly tracker: ObjectTracker;
  private readonly backoff: RestartBackoff;
  private restartTimer: { cancel(): void } | undefined;
  private synced = false;

  constructor(private readonly options: KindInformerOptions) {
    const { kubeConfig, path, labelSelector, fieldSelector, stopping } = options;
    this.tracker = new ObjectTracker(options.adapter);
    this.backoff = new RestartBackoff(options.clock, options.backoff);
    const watch = new SourceWatch(kubeConfig, stopping, () => this.watchOpening());
    const list = () =>
      listRaw(
        kubeConfig,
        path,
        { labelSelector, fieldSelector },
        AbortSignal.any([stopping, AbortSignal.timeout(options.listTimeoutMs)]),
      );
    this.informer = new ListWatch(path, watch, list, false, labelSelector, fieldSelector);
    this.informer.on('add', (obj) => this.emit(this.tracker.upserted(obj)));
    this.informer.on('update', (obj) => this.emit(this.tracker.upserted(obj)));
    this.informer.on('delete', (obj) => this.emit(this.tracker.deleted(obj)));
    this.informer.on('error', (err: unknown) => this.failed(err));
  }

  get kind() {
    return this.options.adapter.kind;
  }

  start(): void {
    this.informer.start().catch((err: unknown) => this.failed(err));
  }

  async stop(): Promise<void> {
    this.restartTimer?.cancel();
    this.restartTimer = undefined;
    await this.informer.stop();
  }

  private emit(event: ModelEvent | undefined): void {
    if (event && !this.options.stopping.aborted) this.options.emit(event);
  }

  private watchOpening(): void {
    this.options.logger.debug(2, 'watch opening', { kind: this.kind, resourceVersion: this.informer.latestResourceVersion() });
    if (this.synced) return;
    this.synced = true;
    this.options.onSynced();
  }

  private failed(err: unknown): void {
    // Stopping aborts the open request, which client-node reports as one more error.
    if (this.options.stopping.aborted || this.restartTimer) return;
    const delayMs = Math.round(this.backoff.nextDelayMs());
    const error = toError(err);
    const statusCode = (err as { statusCode?: unknown } | null)?.statusCode;
    this.options.logger.warn('informer failed; restarting', {
      kind: this.kind,
      error: error.message,
      ...(typeof statusCode === 'number' ? { statusCode } : {}),
      delayMs,
    });
    this.restartTimer = this.options.clock.setTimeout(() => {
      this.restartTimer = undefined;
      if (!this.options.stopping.aborted) this.start();
    }, delayMs);
  }
}
