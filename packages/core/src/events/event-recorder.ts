import { hostname } from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Clock } from '../util/clock.js';
import { systemClock } from '../util/clock.js';
import { toError } from '../util/errors.js';
import { log as defaultLog, type Logger } from '../util/log.js';
import { apiRequest } from '../watch/kube/api-request.js';

/** The object an Event is about (`regarding`), as upstream's `v1.ObjectReference`. */
export interface EventSubject {
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly apiVersion?: string;
}

export interface KubeEvent {
  readonly regarding: EventSubject;
  readonly type: 'Normal' | 'Warning';
  /** `Starting`, `FailedToStartServiceHealthcheck`... */
  readonly reason: string;
  /** `StartKubeProxy`, `Listen`... */
  readonly action: string;
  readonly note: string;
}

/** Where Events go; a fake in tests. Recording never throws and never waits for the API server. */
export interface EventRecorder {
  record(event: KubeEvent): void;
}

export interface KubeEventRecorderOptions {
  readonly kubeConfig: KubeConfig;
  /** `reportingController`: upstream kube-proxy's recorder is `kube-proxy`. */
  readonly component: string;
  /** `reportingInstance` is `<component>-<host>`, as client-go's events broadcaster. */
  readonly host?: string;
  readonly clock?: Clock;
  readonly log?: Logger;
}

/** A series ends when no isomorphic Event came for this long (client-go's `finishTime`). */
export const SERIES_FINISH_MS = 6 * 60_000;
/** An ongoing series' count is sent again this often (client-go's `refreshTime`). */
export const SERIES_REFRESH_MS = 30 * 60_000;

/** One Event posted, and what the API server was last told of its series. */
interface Posted {
  readonly name: string;
  readonly namespace: string;
  /** Resolves once the POST and every PATCH so far are done (a PATCH must follow the POST). */
  sent: Promise<void>;
  count: number;
  lastObserved: number;
  /** The count the API server last got (1: the POST), and when. */
  sentCount: number;
  sentAt: number;
}

/**
 * client-go's `events.EventBroadcaster` as upstream kube-proxy uses it: each Event is POSTed to
 * `events.k8s.io/v1` in the regarding object's namespace (`default` for cluster-scoped objects such
 * as the Node), named `<object>.<hex nanoseconds>`. Fire and forget: a failure is logged, never
 * retried for long and never blocks the proxy (the broadcaster drops Events the same way).
 *
 * Isomorphic Events (same type, reason, action and object; the note may differ) aggregate into a
 * series as client-go's: the first is POSTed, the second PATCHes `series` (count 2) onto it, later
 * ones only count, and the count is PATCHed again every 30 min while they keep coming and once
 * when the series ends (6 min without one). A failing health-check node port retried at every sync
 * is one Event and a count, not a POST per sync.
 */
export class KubeEventRecorder implements EventRecorder {
  readonly #options: KubeEventRecorderOptions;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #instance: string;
  readonly #series = new Map<string, Posted>();
  #sweep: { cancel(): void } | undefined;
  #pending = new Set<Promise<void>>();

  constructor(options: KubeEventRecorderOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#log = options.log ?? defaultLog;
    this.#instance = `${options.component}-${options.host ?? hostname()}`;
  }

  record(event: KubeEvent): void {
    const now = this.#clock.now();
    const key = isomorphicKey(event);
    let posted = this.#series.get(key);
    if (posted !== undefined && now - posted.lastObserved > SERIES_FINISH_MS) {
      this.#finish(key, posted);
      posted = undefined;
    }
    if (posted === undefined) {
      const namespace = event.regarding.namespace || 'default';
      const name = `${event.regarding.name}.${(BigInt(now) * 1_000_000n).toString(16)}`;
      const entry: Posted = {
        name,
        namespace,
        sent: Promise.resolve(),
        count: 1,
        lastObserved: now,
        sentCount: 1,
        sentAt: now,
      };
      entry.sent = this.#track(this.#post(event, namespace, name, now), event.reason);
      this.#series.set(key, entry);
      this.#armSweep();
      return;
    }
    posted.count++;
    posted.lastObserved = now;
    if (posted.sentCount === 1) this.#patchSeries(posted, event.reason);
  }

  /** Resolves once every Event recorded so far was posted (or failed). */
  async flush(): Promise<void> {
    await Promise.all([...this.#pending]);
  }

  /** Sends the counts the API server lacks (ended and long-running series) and forgets ended ones. */
  sweep(): void {
    const now = this.#clock.now();
    for (const [key, posted] of this.#series) {
      if (now - posted.lastObserved > SERIES_FINISH_MS) this.#finish(key, posted);
      else if (posted.count > 1 && now - posted.sentAt >= SERIES_REFRESH_MS) this.#patchSeries(posted, 'series');
    }
  }

  /** Stops the periodic sweep (the counts not yet sent are dropped, as client-go's on shutdown). */
  close(): void {
    this.#sweep?.cancel();
    this.#sweep = undefined;
  }

  #finish(key: string, posted: Posted): void {
    if (posted.count > posted.sentCount) this.#patchSeries(posted, 'series');
    this.#series.delete(key);
  }

  #armSweep(): void {
    if (this.#sweep !== undefined) return;
    this.#sweep = this.#clock.setTimeout(() => {
      this.#sweep = undefined;
      this.sweep();
      if (this.#series.size > 0) this.#armSweep();
    }, SERIES_FINISH_MS);
  }

  #patchSeries(posted: Posted, reason: string): void {
    const now = this.#clock.now();
    const series = { count: posted.count, lastObservedTime: microTime(posted.lastObserved) };
    posted.sentCount = posted.count;
    posted.sentAt = now;
    const path = `/apis/events.k8s.io/v1/namespaces/${posted.namespace}/events/${posted.name}`;
    posted.sent = this.#track(
      posted.sent.then(() => this.#send('PATCH', path, JSON.stringify({ series }))),
      reason,
    );
  }

  #track(sending: Promise<void>, reason: string): Promise<void> {
    const sent = sending.catch((err: unknown) =>
      this.#log.warn('cannot post a Kubernetes Event', { reason, err: toError(err).message }),
    );
    this.#pending.add(sent);
    void sent.finally(() => this.#pending.delete(sent));
    return sent;
  }

  #post(event: KubeEvent, namespace: string, name: string, now: number): Promise<void> {
    const body = JSON.stringify({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name, namespace },
      eventTime: microTime(now),
      reportingController: this.#options.component,
      reportingInstance: this.#instance,
      action: event.action,
      reason: event.reason,
      regarding: { ...event.regarding },
      note: event.note,
      type: event.type,
    });
    return this.#send('POST', `/apis/events.k8s.io/v1/namespaces/${namespace}/events`, body);
  }

  async #send(method: 'POST' | 'PATCH', path: string, body: string): Promise<void> {
    const { res } = await apiRequest(this.#options.kubeConfig, method, path, {}, AbortSignal.timeout(10_000), body);
    res.resume();
    const status = res.statusCode ?? 0;
    if (status < 200 || status > 299) throw new Error(`${method} events: HTTP ${status}`);
  }
}

/** client-go's `getKey`: what makes two Events the same series (not the note, not the time). */
function isomorphicKey(event: KubeEvent): string {
  const r = event.regarding;
  return JSON.stringify([event.type, event.reason, event.action, r.kind, r.namespace, r.name, r.uid, r.apiVersion]);
}

/** `MicroTime`: RFC 3339 with microseconds. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z');
}
