import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { ModelEvent } from '../../model/types.js';
import type { Clock } from '../../util/clock.js';
import { toError } from '../../util/errors.js';
import type { Logger } from '../../util/log.js';
import type { KubeWatchMetrics } from '../../metrics/kube-watch.js';
import { classifyFailure } from './failure-class.js';
import type { KindAdapter } from './kinds.js';
import { ApiStatusError } from './api-request.js';
import { listRaw } from './list-request.js';
import { ListWatch } from './list-watch.js';
import { ListedObject } from './listed-object.js';
import { ObjectTracker } from './object-tracker.js';
import type { RequestRateLimiter } from './request-rate-limiter.js';
import type { ReconnectRounds } from './reconnect-rounds.js';
import { SourceWatch } from './source-watch.js';
import { WatchOutage } from './watch-outage.js';
import { reportInvalid, reportingTo } from '../convert/report.js';
import type { EventRecorder } from '../../events/event-recorder.js';

export interface KindInformerOptions {
  readonly kubeConfig: KubeConfig;
  readonly adapter: KindAdapter;
  /** Cluster-wide collection path, e.g. `/api/v1/services`. */
  readonly path: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /**
   * Receives each event's conversion, in order, to run later off the informer's callback (the
   * source's `EventBatcher`); what it returns is already filtered (nothing once `stopping` aborted).
   */
  readonly emit: (convert: () => ModelEvent | undefined) => void;
  /** Called once, when the initial list has been emitted. */
  readonly onSynced: () => void;
  readonly stopping: AbortSignal;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The retry schedule, shared with the source's other kinds. */
  readonly rounds: ReconnectRounds;
  readonly metrics?: KubeWatchMetrics;
  readonly listTimeoutMs: number;
  /** The source's request throttle, shared by its kinds' LISTs and WATCHes. */
  readonly limiter?: RequestRateLimiter;
  /** Milliseconds of a LIST's apply per event-loop turn (`ListWatch`; default 10). */
  readonly turnBudgetMs?: number;
  /** Where an invalid object is reported as an Event too (kube-proxy's recorder). */
  readonly events?: EventRecorder;
}

/**
 * One informer (`ListWatch`: LIST then WATCH, relisting on 410 Gone by itself), kept alive: on any
 * other failure it stops for good, so it is restarted here at the next of
 * the source's reconnect rounds. A restart resumes the watch from the last resourceVersion seen
 * (no LIST: the server sends what changed meanwhile), or relists when the failure hit the list or
 * the resume point is gone (410); a relist keeps the informer's cache, so only differences are
 * emitted, deletions of vanished objects included, and the served state is never dropped.
 */
export class KindInformer {
  private readonly informer: ListWatch<KubernetesObject>;
  private readonly tracker: ObjectTracker;
  private readonly outage: WatchOutage;
  private retryPending = false;
  private synced = false;

  constructor(private readonly options: KindInformerOptions) {
    const { kubeConfig, path, labelSelector, fieldSelector, stopping } = options;
    this.tracker = new ObjectTracker(options.adapter, options.events ? reportingTo(options.events) : reportInvalid);
    this.outage = new WatchOutage(options.adapter.kind, options.clock, options.logger, options.metrics);
    const watch = new SourceWatch(
      kubeConfig,
      stopping,
      {
        opening: () => this.watchOpening(),
        opened: () => {
          this.outage.opened();
          options.rounds.reachable();
        },
        closed: () => this.outage.closed(),
      },
      options.limiter,
    );
    const list = () =>
      listRaw(
        kubeConfig,
        path,
        { labelSelector, fieldSelector },
        AbortSignal.any([stopping, AbortSignal.timeout(options.listTimeoutMs)]),
        options.limiter,
        (item): KubernetesObject => new ListedObject(item, options.adapter),
      );
    this.informer = new ListWatch(path, watch, list, {
      labelSelector,
      fieldSelector,
      ...(options.turnBudgetMs === undefined ? {} : { turnBudgetMs: options.turnBudgetMs }),
    });
    // The informer's cache keeps only names and versions: once converted, the raw object is
    // garbage, and the model holds the converted form, one copy.
    const upserted = (obj: KubernetesObject): void => this.emit(() => this.tracker.upserted(obj));
    this.informer.on('add', upserted);
    this.informer.on('update', upserted);
    this.informer.on('delete', (obj) => this.emit(() => this.tracker.deleted(obj)));
    this.informer.on('error', (err: unknown) => this.failed(err));
  }

  get kind() {
    return this.options.adapter.kind;
  }

  start(): void {
    this.informer.start().catch((err: unknown) => this.failed(err));
  }

  /** Stops watching; the source cancels pending retries (its `ReconnectRounds`) first. */
  async stop(): Promise<void> {
    this.outage.dispose();
    await this.informer.stop();
  }

  private emit(convert: () => ModelEvent | undefined): void {
    if (this.options.stopping.aborted) return;
    this.options.emit(() => (this.options.stopping.aborted ? undefined : convert()));
  }

  private watchOpening(): void {
    this.options.logger.debug(2, 'watch opening', {
      kind: this.kind,
      resourceVersion: this.informer.latestResourceVersion(),
    });
    if (this.synced) return;
    this.synced = true;
    this.options.onSynced();
  }

  private failed(err: unknown): void {
    // Stopping aborts the open request, which client-node reports as one more error.
    if (this.options.stopping.aborted || this.retryPending) return;
    this.retryPending = true;
    const failure = classifyFailure(err);
    const attempts = this.outage.failed();
    const statusCode = (err as { statusCode?: unknown } | null)?.statusCode;
    const retryAfterMs = serverRetryAfterMs(err);
    const delayMs = this.options.rounds.retryLater(
      failure,
      () => {
        this.retryPending = false;
        if (!this.options.stopping.aborted) this.start();
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
    if (failure === 'unreachable' && attempts > 1) this.options.logger.debug(2, 'informer failed; retrying', fields);
    else this.options.logger.warn('informer failed; retrying', fields);
  }
}

/** The `Retry-After` of a 429 or 5xx answer, which client-go's REST client waits for (`checkWait`). */
function serverRetryAfterMs(err: unknown): number | undefined {
  if (!(err instanceof ApiStatusError) || err.retryAfterSeconds === undefined) return undefined;
  return err.statusCode === 429 || err.statusCode >= 500 ? err.retryAfterSeconds * 1000 : undefined;
}
