import { Backoff } from '@kpng/kit';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KindAdapter } from './kinds.js';
import type { Collection } from './requests.js';
import type { KubeWatchMetrics } from '../../metrics/kube-watch.js';
import type { RestClientMetrics } from '../../metrics/rest-client.js';
import type { ModelEvent } from '../../model/types.js';
import { systemClock, type Clock } from '../../util/clock.js';
import { ErrorCodes, KpngError } from '../../util/errors.js';
import { log, type LogFields, type Logger } from '../../util/log.js';
import type { ModelSink, Source } from '../source.js';
import { reportInvalid, reportingTo } from '../convert/index.js';
import { ApiStatusError } from './api-request.js';
import { EventBatcher } from './event-batcher.js';
import {
  deletionOf,
  endpointSliceAdapter,
  namespaceAdapter,
  networkPolicyAdapter,
  nodeAdapter,
  podAdapter,
  serviceAdapter,
  serviceCIDRAdapter,
} from './kinds.js';
import { slimClientNode } from './client-node.js';
import { ReconnectRounds } from './reconnect-rounds.js';
import { DEFAULT_RATE_LIMIT, RequestRateLimiter, type RateLimit } from './request-rate-limiter.js';
import type { BackoffOptions } from './reconnect-rounds.js';
import { nodeFieldSelector, proxyLabelSelector } from './selectors.js';
import { servedServiceCIDRPath } from './service-cidr-path.js';
import type { EventRecorder } from '../../events/event-recorder.js';

export interface KubeSourceOptions {
  readonly kubeConfig: KubeConfig;
  /** This node's name: only its Node object is watched. Required unless `allNodes`. */
  readonly nodeName?: string;
  /** Central-core mode: watch every Node. */
  readonly allNodes?: boolean;
  /** Consume only Services labelled `service.kubernetes.io/service-proxy-name=<this>` (semantics 2.1). */
  readonly serviceProxyName?: string;
  /** Observe every API request (`registerRestClientMetrics`). */
  readonly restClientMetrics?: RestClientMetrics;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Watch availability per kind (`registerKubeWatchMetrics`). */
  readonly watchMetrics?: KubeWatchMetrics;
  /** Retry schedule after the API server answered with an error; client-go's reflector values by default. */
  readonly backoff?: BackoffOptions;
  /** Retry schedule while the API server does not answer at all; `UNREACHABLE_BACKOFF` by default. */
  readonly unreachableBackoff?: BackoffOptions;
  /** Bound on one LIST request. Default 60 s. */
  readonly listTimeoutMs?: number;
  /** Milliseconds of converting and applying per event-loop turn before yielding (default 10; `EventBatcher`). */
  readonly turnBudgetMs?: number;
  /** Client-side request throttle (`clientConnection.qps`/`burst`); client-go's 5/10 by default. */
  readonly rateLimit?: RateLimit;
  /** Watch ServiceCIDRs (networking.k8s.io v1, else v1beta1, where served). Default true. */
  readonly serviceCIDRs?: boolean;
  /** First delay before asking again which ServiceCIDR version is served when the server failed to say (default 10 s, doubling). */
  readonly serviceCIDRProbeRetryMs?: number;
  /** How often to ask again while ServiceCIDRs are not served (404) or not allowed (403); default 5 min. */
  readonly serviceCIDRRecheckMs?: number;
  /** An object refused by validation is also a Warning Event about it (`reason: InvalidObject`). */
  readonly events?: EventRecorder;
  /**
   * Also watch every Pod, Namespace and `networking.k8s.io/v1` NetworkPolicy, for NetworkPolicy
   * enforcement (peers live on every node, so Pods are not filtered by node). Default false.
   */
  readonly policy?: boolean;
}

const SERVICES_PATH = '/api/v1/services';
const ENDPOINT_SLICES_PATH = '/apis/discovery.k8s.io/v1/endpointslices';
const NODES_PATH = '/api/v1/nodes';
const PODS_PATH = '/api/v1/pods';
const NAMESPACES_PATH = '/api/v1/namespaces';
const NETWORK_POLICIES_PATH = '/apis/networking.k8s.io/v1/networkpolicies';

/** A kind to watch: how to convert its objects, and which collection (path, selectors) holds them. */
export interface WatchedKind extends Collection {
  readonly adapter: KindAdapter;
}

/**
 * The `kube` source: one `KindInformer` per watched kind (Services, EndpointSlices, Nodes, and
 * ServiceCIDRs where served), sharing a request throttle and a retry schedule; their objects, converted into model events
 * and handed to the sink in batches (`EventBatcher`: one per event-loop turn, and a big initial
 * list over many turns, yielding between them). A kind is reported synced once its initial list
 * has been applied.
 */
export class KubeSource implements Source {
  readonly name = 'kube';
  private readonly clock: Clock;
  private readonly logger: Logger;

  constructor(private readonly options: KubeSourceOptions) {
    if (!options.allNodes && !options.nodeName) {
      throw new KpngError(ErrorCodes.InvalidConfig, 'kube source: a node name is required unless watching all nodes');
    }
    this.clock = options.clock ?? systemClock;
    this.logger = (options.logger ?? log).with({ source: 'kube' });
  }

  async run(sink: ModelSink, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    // client-node is loaded only now (see client-node.ts): these modules use its KubeConfig.
    slimClientNode();
    const [{ KindInformer, kubeRequests }, { instrumentKubeConfig }] = await Promise.all([
      import('./informer.js'),
      import('./instrumented-kubeconfig.js'),
    ]);
    if (signal.aborted) return;
    const kubeConfig = this.options.restClientMetrics
      ? instrumentKubeConfig(this.options.kubeConfig, this.options.restClientMetrics, this.clock)
      : this.options.kubeConfig;
    const batcher = new EventBatcher((batch) => this.deliver(sink, batch, signal), {
      ...(this.options.turnBudgetMs !== undefined ? { budgetMs: this.options.turnBudgetMs } : {}),
    });
    const labelSelector = proxyLabelSelector(this.options.serviceProxyName);
    const fieldSelector = nodeFieldSelector(this.options.allNodes ? undefined : this.options.nodeName);
    /** The watched kinds: one informer each. */
    const kinds: WatchedKind[] = [
      { adapter: serviceAdapter, path: SERVICES_PATH, labelSelector },
      { adapter: endpointSliceAdapter, path: ENDPOINT_SLICES_PATH, labelSelector },
      { adapter: nodeAdapter, path: NODES_PATH, fieldSelector },
    ];
    if (this.options.policy) {
      kinds.push(
        { adapter: podAdapter, path: PODS_PATH },
        { adapter: namespaceAdapter, path: NAMESPACES_PATH },
        { adapter: networkPolicyAdapter, path: NETWORK_POLICIES_PATH },
      );
    }
    const limiter = new RequestRateLimiter(this.options.rateLimit ?? DEFAULT_RATE_LIMIT, this.clock);
    const rounds = new ReconnectRounds(this.clock, {
      ...(this.options.backoff ? { answered: this.options.backoff } : {}),
      ...(this.options.unreachableBackoff ? { unreachable: this.options.unreachableBackoff } : {}),
    });
    const listTimeoutMs = this.options.listTimeoutMs ?? 60_000;
    const makeInformer = ({ adapter, ...collection }: WatchedKind) =>
      new KindInformer({
        adapter,
        deletionOf,
        requests: kubeRequests(kubeConfig, collection, { stopping: signal, listTimeoutMs, limiter }),
        emit: (convert) => batcher.push(convert),
        onSynced: () =>
          batcher.afterPending(() => {
            if (signal.aborted) return;
            this.logger.info('initial list synced', { kind: adapter.kind });
            sink.synced(adapter.kind);
          }),
        stopping: signal,
        clock: this.clock,
        logger: this.logger,
        rounds,
        ...(this.options.watchMetrics ? { metrics: this.options.watchMetrics } : {}),
        report: this.options.events ? reportingTo(this.options.events) : reportInvalid,
        ...(this.options.turnBudgetMs !== undefined ? { turnBudgetMs: this.options.turnBudgetMs } : {}),
      });
    const informers = kinds.map(makeInformer);
    this.logger.info('starting informers', {
      labelSelector,
      ...(fieldSelector ? { nodeFieldSelector: fieldSelector } : {}),
    });
    for (const informer of informers) void informer.start();
    if (this.options.serviceCIDRs !== false) {
      void this.#startServiceCIDRs(kubeConfig, signal, limiter, (path) => {
        const informer = makeInformer({ adapter: serviceCIDRAdapter, path });
        informers.push(informer);
        void informer.start();
      });
    }
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    batcher.discard();
    rounds.cancel();
    await Promise.all(informers.map((i) => i.stop()));
    this.logger.info('stopped');
  }

  /**
   * Finds the served ServiceCIDR version (v1, else v1beta1) and starts its informer. Optional: the
   * other kinds never wait for it, as upstream's proxier does not. None served (404) or not allowed
   * (403: a kube-proxy role without `servicecidrs`, e.g. on 1.28) means the configured ranges are
   * used: said once, then re-checked every `serviceCIDRRecheckMs` quietly (a cluster upgrade or an
   * RBAC change takes effect). Any other failure is retried sooner, backing off to that interval.
   * An answer that repeats the previous one is logged at -v=2 only: the log never floods.
   */
  async #startServiceCIDRs(
    kubeConfig: KubeConfig,
    signal: AbortSignal,
    limiter: RequestRateLimiter,
    start: (path: string) => void,
  ): Promise<void> {
    const retryMs = this.options.serviceCIDRProbeRetryMs ?? 10_000;
    const recheckMs = this.options.serviceCIDRRecheckMs ?? 300_000;
    let said: string | undefined;
    const say = (answer: string, level: 'info' | 'warn', msg: string, fields: LogFields) => {
      if (said === answer) this.logger.debug(2, msg, fields);
      else this.logger[level](msg, fields);
      said = answer;
    };
    // Failures that say nothing about what is served back off from `retryMs` to `recheckMs`.
    const unclear = new Backoff({ initialMs: retryMs, maxMs: recheckMs });
    while (!signal.aborted) {
      let delayMs = recheckMs;
      try {
        const path = await servedServiceCIDRPath(kubeConfig, signal, limiter);
        if (signal.aborted) return;
        if (path !== undefined) {
          this.logger.info('watching ServiceCIDRs', { path });
          start(path);
          return;
        }
        say('unserved', 'info', 'the API server serves no ServiceCIDRs; using the configured service ranges, if any', {
          recheckMs,
        });
      } catch (err) {
        if (signal.aborted) return;
        const error = err instanceof Error ? err.message : String(err);
        if (err instanceof ApiStatusError && err.statusCode === 403) {
          say('forbidden', 'warn', 'not allowed to list ServiceCIDRs; using the configured service ranges, if any', {
            error,
            recheckMs,
          });
        } else {
          delayMs = unclear.next();
          say('unclear', 'warn', 'cannot tell which ServiceCIDR version the API server serves; retrying', {
            error,
            delayMs,
          });
        }
      }
      await new Promise<void>((resolve) => {
        const timer = this.clock.setTimeout(resolve, delayMs);
        signal.addEventListener('abort', () => (timer.cancel(), resolve()), { once: true });
      });
    }
  }

  private deliver(sink: ModelSink, batch: readonly ModelEvent[], signal: AbortSignal): void {
    if (signal.aborted) return;
    try {
      sink.apply(batch);
    } catch (err) {
      this.logger.error('model sink rejected a batch', { error: err, events: batch.length });
    }
  }
}
