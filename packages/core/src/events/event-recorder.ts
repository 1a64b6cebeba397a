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

/**
 * client-go's `events.EventBroadcaster` as upstream kube-proxy uses it: each Event is POSTed to
 * `events.k8s.io/v1` in the regarding object's namespace (`default` for cluster-scoped objects such
 * as the Node), named `<object>.<hex nanoseconds>`. Fire and forget: a failure is logged, never
 * retried for long and never blocks the proxy (the broadcaster drops Events the same way).
 */
export class KubeEventRecorder implements EventRecorder {
  readonly #options: KubeEventRecorderOptions;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #instance: string;
  #pending = new Set<Promise<void>>();

  constructor(options: KubeEventRecorderOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#log = options.log ?? defaultLog;
    this.#instance = `${options.component}-${options.host ?? hostname()}`;
  }

  record(event: KubeEvent): void {
    const sent = this.#send(event).catch((err: unknown) =>
      this.#log.warn('cannot post a Kubernetes Event', { reason: event.reason, err: toError(err).message }),
    );
    this.#pending.add(sent);
    void sent.finally(() => this.#pending.delete(sent));
  }

  /** Resolves once every Event recorded so far was posted (or failed). */
  async flush(): Promise<void> {
    await Promise.all([...this.#pending]);
  }

  async #send(event: KubeEvent): Promise<void> {
    const now = this.#clock.now();
    const namespace = event.regarding.namespace || 'default';
    const body = JSON.stringify({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: `${event.regarding.name}.${(BigInt(now) * 1_000_000n).toString(16)}`, namespace },
      eventTime: new Date(now).toISOString().replace('Z', '000Z'), // MicroTime
      reportingController: this.#options.component,
      reportingInstance: this.#instance,
      action: event.action,
      reason: event.reason,
      regarding: { ...event.regarding },
      note: event.note,
      type: event.type,
    });
    const path = `/apis/events.k8s.io/v1/namespaces/${namespace}/events`;
    const { res } = await apiRequest(this.#options.kubeConfig, 'POST', path, {}, AbortSignal.timeout(10_000), body);
    res.resume();
    const status = res.statusCode ?? 0;
    if (status < 200 || status > 299) throw new Error(`POST events: HTTP ${status}`);
  }
}
