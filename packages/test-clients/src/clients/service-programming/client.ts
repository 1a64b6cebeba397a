import { Backoff } from '@kpng/kit';
import type { ProbeSettings } from '../../config/common.js';
import {
  annotation,
  parseTime,
  TRIGGER_TIME_ANNOTATION,
  type EndpointSlice,
  type IPFamily,
  type Service,
} from '../../kube/objects.js';
import type { ObjectEvent, ObjectStream } from '../../kube/stream.js';
import type { ServiceMetrics } from '../../metrics/client-metrics.js';
import { connectMatcher, replyPrefixMatcher, type SuccessMatcher } from '../../probe/matcher.js';
import { Prober } from '../../probe/prober.js';
import { TargetBook } from '../../probe/target-book.js';
import { aborted } from '../../util/abort.js';
import { sleep } from '../../util/clock.js';
import { seconds } from '../../util/log.js';
import type { ClientContext } from '../context.js';
import { EndpointSet, type ReadyEndpoint } from './endpoints.js';
import { servicePaths, type ServicePath } from './paths.js';

/** How a probe decides that the changed endpoint answered. */
export type MatchMode = 'endpoint-name' | 'connect';

export interface ServiceProgrammingOptions {
  readonly serviceNamespace: string;
  readonly serviceName: string;
  readonly servicePort: number;
  readonly nodeIP: string;
  readonly match: MatchMode;
  /** Stop after this many samples (0: run until stopped). */
  readonly maxMeasurements: number;
  readonly connectionsPerAttempt: number;
  readonly probe: ProbeSettings;
  /** The Service's EndpointSlices (`kubernetes.io/service-name=<name>`). */
  readonly slices: ObjectStream<EndpointSlice>;
  readonly getService: (signal: AbortSignal) => Promise<Service | undefined>;
  readonly metrics: ServiceMetrics;
}

/** The `start` label: what a service_programming_latency_seconds sample is measured from. */
export type ServiceStartSource = 'trigger-time' | 'watch';

interface ChangeStart {
  /** The primary start: the trigger time when usable, else the watch event. */
  readonly at: number;
  readonly source: ServiceStartSource;
  /** When this client's watch delivered the change (client clock): always known. */
  readonly watchAt: number;
}

/**
 * Service programming latency: from an EndpointSlice change to the new endpoint answering through
 * the Service; the end is the first connection to the ClusterIP (each family, and the NodePort on
 * -NodeIP) that the new endpoint answers. Every change gives a sample from this client's watch
 * event (`start="watch"`: millisecond precision, this client's clock) and, when the slice carries a
 * usable `endpoints.kubernetes.io/last-change-trigger-time`, one from it too
 * (`start="trigger-time"`: what kube-proxy's network_programming_duration_seconds starts from,
 * whole seconds, control-plane clock). The label keeps the two apart: a series never mixes them.
 *
 * `endpoint-name` mode needs endpoints that answer with their pod name (the lab echo server,
 * `agnhost serve-hostname --tcp`) and measures every endpoint that becomes ready. `connect` mode
 * works with any server but cannot tell endpoints apart, so it measures only a Service going from
 * no ready endpoint (of a family) to some.
 */
export class ServiceProgrammingClient {
  readonly book: TargetBook;
  private readonly prober: Prober;
  private readonly endpoints = new EndpointSet();
  private readonly work = new Set<Promise<void>>();
  /** Probe key -> the endpoint key it waits for (`IPv4/web-2`, or `IPv4/*` in connect mode). */
  private readonly running = new Map<string, string>();
  private readonly logger;
  private readonly startedAt: number;
  private paths: readonly ServicePath[] = [];
  private changes = 0;

  constructor(
    private readonly options: ServiceProgrammingOptions,
    private readonly ctx: ClientContext,
  ) {
    const { metrics } = options;
    this.book = new TargetBook({
      measurement: 'service_programming',
      tracking: metrics.tracking,
      observe: () => {
        throw new Error('every claim passes its own observer');
      },
      ...(options.maxMeasurements > 0 ? { maxTargets: options.maxMeasurements } : {}),
    });
    this.prober = new Prober({ clock: ctx.clock, dialer: ctx.dialer, tracking: metrics.tracking }, options.probe);
    this.logger = ctx.logger.with({
      measurement: 'service_programming',
      service: `${options.serviceNamespace}/${options.serviceName}`,
    });
    this.startedAt = ctx.clock.now();
  }

  /** Runs until `signal` aborts, or until MaxMeasurements samples are in. */
  async run(signal: AbortSignal): Promise<void> {
    const paths = await this.resolvePaths(signal);
    if (paths === undefined) return;
    this.paths = paths;
    this.logger.info('probing the Service', {
      paths: paths.map((p) => `${p.path} ${p.family === 'IPv6' ? `[${p.host}]` : p.host}:${p.port}`),
      match: this.options.match,
    });
    const watching = new AbortController();
    const stop = (): void => watching.abort();
    signal.addEventListener('abort', stop, { once: true });
    const stream = this.options.slices.run(
      {
        event: (event) => this.onEvent(event),
        synced: () =>
          this.logger.info('endpoint slices synced', {
            ready: { IPv4: this.endpoints.count('IPv4'), IPv6: this.endpoints.count('IPv6') },
          }),
      },
      watching.signal,
    );
    const streamFailed = stream.then(
      () => undefined,
      (error: unknown) => {
        this.logger.error('cannot watch EndpointSlices; giving up', { error });
        return 'failed' as const;
      },
    );
    const outcome = await Promise.race([this.book.done.then(() => 'complete' as const), streamFailed, aborted(signal)]);
    stop();
    signal.removeEventListener('abort', stop);
    if (outcome !== 'complete') {
      this.prober.stopAll('shutdown');
      await Promise.all(this.work);
      this.book.abandonAll('shutdown');
    }
    await Promise.all([stream.catch(() => undefined), ...this.work]);
    if (outcome === 'complete') this.logger.info('measurement complete', { measured: this.book.claimed });
  }

  /** GETs the Service until it exists (retrying with backoff) and works out what to probe. */
  private async resolvePaths(signal: AbortSignal): Promise<readonly ServicePath[] | undefined> {
    const backoff = new Backoff({ initialMs: 500, maxMs: 10_000 });
    let delayMs = backoff.next();
    while (!signal.aborted) {
      try {
        const service = await this.options.getService(signal);
        if (service !== undefined) {
          const paths = servicePaths(service, {
            servicePort: this.options.servicePort,
            nodeIP: this.options.nodeIP,
            ipFamily: this.options.probe.ipFamily,
          });
          if (typeof paths !== 'string') return paths;
          this.logger.error('nothing to probe', { reason: paths });
          return undefined;
        }
        this.logger.warn('Service not found; retrying', { delayMs });
      } catch (error) {
        if (signal.aborted) break;
        this.logger.warn('cannot get the Service; retrying', { error, delayMs });
      }
      await sleep(this.ctx.clock, delayMs, signal);
      delayMs = backoff.next();
    }
    return undefined;
  }

  private onEvent(event: ObjectEvent<EndpointSlice>): void {
    const before = { IPv4: this.endpoints.count('IPv4'), IPv6: this.endpoints.count('IPv6') };
    const changes = event.type === 'deleted' ? this.endpoints.remove(event.object) : this.endpoints.apply(event.object);
    if (event.initial) return; // the starting point, not a change
    for (const endpoint of changes.removed) this.stopEndpoint(endpoint.key);
    for (const family of ['IPv4', 'IPv6'] as const)
      if (this.endpoints.count(family) === 0) this.stopEndpoint(`${family}/*`);
    if (changes.added.length === 0 || this.book.full) return;
    const change = ++this.changes;
    const start = this.changeStart(event);
    if (this.options.match === 'connect') {
      for (const family of ['IPv4', 'IPv6'] as const) {
        if (before[family] === 0 && changes.added.some((e) => e.family === family))
          this.measure(change, start, `${family}/*`, family, undefined, connectMatcher);
      }
      return;
    }
    for (const endpoint of changes.added) {
      if (endpoint.name === undefined) {
        this.book.skip('endpoint-without-name');
        continue;
      }
      this.measure(change, start, endpoint.key, endpoint.family, endpoint, replyPrefixMatcher(endpoint.name));
    }
  }

  private changeStart(event: ObjectEvent<EndpointSlice>): ChangeStart {
    const trigger = parseTime(annotation(event.object, TRIGGER_TIME_ANNOTATION));
    // As kube-proxy: a trigger time from before this client started belongs to an older change.
    if (trigger !== undefined && trigger > this.startedAt)
      return { at: trigger, source: 'trigger-time', watchAt: event.receivedAt };
    return { at: event.receivedAt, source: 'watch', watchAt: event.receivedAt };
  }

  private measure(
    change: number,
    start: ChangeStart,
    endpointKey: string,
    family: IPFamily,
    endpoint: ReadyEndpoint | undefined,
    matcher: SuccessMatcher,
  ): void {
    for (const path of this.paths.filter((p) => p.family === family)) {
      const key = `${endpointKey}#${change}@${path.path}`;
      const histogram = this.options.metrics.programming.labels({
        path: path.path,
        ip_family: family,
        start: start.source,
      });
      if (this.book.claim(key, (s) => histogram.observe(s)) !== 'claimed') return;
      const fields = {
        endpoint: endpoint?.name ?? '*',
        endpointAddress: endpoint?.address,
        path: path.path,
        ip: path.host,
        port: path.port,
        ipFamily: family,
        startSource: start.source,
      };
      this.running.set(key, endpointKey);
      this.track(this.probe(key, path, start, matcher, fields).finally(() => this.running.delete(key)));
    }
  }

  private async probe(
    key: string,
    path: ServicePath,
    start: ChangeStart,
    matcher: SuccessMatcher,
    fields: Record<string, unknown>,
  ): Promise<void> {
    this.logger.info('endpoint change: probing', fields);
    const outcome = await this.prober.run({
      key,
      measurement: 'service_programming',
      host: path.host,
      port: path.port,
      goal: 'reachable',
      matcher,
      deadline: this.prober.deadlineFrom(Math.max(start.at, this.ctx.clock.now())),
      connectionsPerAttempt: this.options.connectionsPerAttempt,
    });
    if (outcome.status !== 'done') {
      const reason = outcome.status === 'stopped' ? outcome.reason : 'deadline';
      this.book.unreached(key, reason);
      this.logger.warn('endpoint never answered through the Service', {
        ...fields,
        reason,
        attempts: outcome.attempts,
      });
      return;
    }
    const recorded = this.book.reached(key, outcome.at - start.at, start.source);
    // The watch-based twin of a trigger-time sample, in its own series (start="watch").
    if (start.source === 'trigger-time')
      this.options.metrics.programming.observe(
        { path: path.path, ip_family: path.family, start: 'watch' },
        Math.max(0, outcome.at - start.watchAt) / 1_000,
      );
    this.logger.info('endpoint answered through the Service', {
      ...fields,
      latencySeconds: seconds(outcome.at - start.at),
      latencyFromWatchSeconds: seconds(outcome.at - start.watchAt),
      recordedSeconds: recorded.seconds,
      attempts: outcome.attempts,
      ...(outcome.reply !== undefined ? { reply: outcome.reply.trim() } : {}),
    });
  }

  /** Stops the probes of an endpoint that went away (they can no longer succeed). */
  private stopEndpoint(endpointKey: string): void {
    for (const [key, owner] of this.running) if (owner === endpointKey) this.prober.stop(key, 'removed');
  }

  private track(work: Promise<void>): void {
    const tracked = work.catch((error: unknown) => this.logger.error('measurement failed', { error }));
    this.work.add(tracked);
    void tracked.finally(() => this.work.delete(tracked));
  }
}
