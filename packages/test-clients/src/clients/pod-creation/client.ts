import type { ProbeSettings, TargetSettings } from '../../config/common.js';
import { creationTime, familyOf, keyOf, podIP, type Pod } from '../../kube/objects.js';
import type { ObjectEvent, ObjectStream } from '../../kube/stream.js';
import type { PodCreationMetrics } from '../../metrics/client-metrics.js';
import { connectMatcher, httpReplyMatcher, type SuccessMatcher } from '../../probe/matcher.js';
import { Prober } from '../../probe/prober.js';
import { TargetBook } from '../../probe/target-book.js';
import { aborted } from '../../util/abort.js';
import { seconds } from '../../util/log.js';
import type { ClientContext } from '../context.js';

export interface PodCreationOptions {
  readonly targets: TargetSettings;
  readonly probe: ProbeSettings;
  /** Pods in TargetNamespace matching TargetLabelSelector. */
  readonly pods: ObjectStream<Pod>;
  readonly metrics: PodCreationMetrics;
}

/**
 * Pod-creation reachability latency. Watches the target pods; for each NEW pod, the moment the
 * watch delivers it with an IP address starts two samples: `pod_ip_address_assigned_latency_seconds`
 * (that moment minus the pod's creationTimestamp) and, once the pod first accepts a connection,
 * `pod_creation_reachability_latency_seconds` (first success minus that moment).
 *
 * In upstream mode (the default) the rest is upstream's too: curl after curl until an HTTP reply,
 * no deadline, and the pods of the initial list are measured like new ones. In precise mode,
 * attempts are TCP connects on a fixed interval, pods the initial list already shows with an IP
 * existed before the client and are skipped (counted), and a pod not reached by its deadline is
 * counted as unreached. Either way exactly MaxTargets pods are measured, and a pod deleted before
 * it answered is counted as unreached.
 */
export class PodCreationClient {
  readonly ipBook: TargetBook;
  readonly book: TargetBook;
  private readonly prober: Prober;
  /** Pods that will never be measured (pre-existing, no address in the family, beyond MaxTargets). */
  private readonly ignored = new Set<string>();
  private readonly probes = new Set<Promise<void>>();
  private readonly logger;
  private readonly matcher: SuccessMatcher;

  constructor(
    private readonly options: PodCreationOptions,
    ctx: ClientContext,
  ) {
    const { metrics } = options;
    const maxTargets = options.targets.maxTargets;
    const mode = options.probe.mode;
    this.ipBook = new TargetBook({
      measurement: 'pod_ip_address_assigned',
      tracking: metrics.tracking,
      observe: metrics.ipAssigned,
      maxTargets,
      mode,
      start: 'creationTimestamp',
    });
    this.book = new TargetBook({
      measurement: 'pod_creation_reachability',
      tracking: metrics.tracking,
      observe: metrics.reachability,
      maxTargets,
      mode,
      start: 'watch',
    });
    this.matcher = mode === 'upstream' ? httpReplyMatcher : connectMatcher;
    this.prober = new Prober({ clock: ctx.clock, dialer: ctx.dialer, tracking: metrics.tracking }, options.probe);
    this.logger = ctx.logger.with({ measurement: 'pod_creation_reachability' });
  }

  /** Resolves when MaxTargets pods have been measured (reached or not), or when `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const { targetNamespace, targetLabelSelector } = this.options.targets;
    this.logger.info('watching target pods', {
      namespace: targetNamespace,
      labelSelector: targetLabelSelector,
      maxTargets: this.options.targets.maxTargets,
      mode: this.options.probe.mode,
      probe: this.matcher.description,
      intervalMs: this.options.probe.intervalMs,
    });
    const watching = new AbortController();
    const stopWatching = (): void => watching.abort();
    signal.addEventListener('abort', stopWatching, { once: true });
    const stream = this.options.pods.run(
      {
        event: (event) => this.onEvent(event),
        synced: () => this.logger.info('initial list synced', { preexistingPods: this.ignored.size }),
      },
      watching.signal,
    );
    // The stream ends on abort; a permanent failure (403) ends the measurement.
    const streamFailed = stream.then(
      () => undefined,
      (error: unknown) => {
        this.logger.error('cannot watch target pods; giving up', { error });
        return 'failed' as const;
      },
    );
    const outcome = await Promise.race([this.book.done.then(() => 'complete' as const), streamFailed, aborted(signal)]);
    stopWatching();
    signal.removeEventListener('abort', stopWatching);
    if (outcome !== 'complete') {
      this.prober.stopAll('shutdown');
      await Promise.all(this.probes);
      this.book.abandonAll('shutdown');
      this.ipBook.close();
    }
    await stream.catch(() => undefined);
    await Promise.all(this.probes);
    if (outcome === 'complete') this.logger.info('measurement complete', { measured: this.book.claimed });
  }

  private onEvent(event: ObjectEvent<Pod>): void {
    const pod = event.object;
    const uid = pod.metadata?.uid ?? keyOf(pod);
    if (event.type === 'deleted') {
      this.prober.stop(uid, 'deleted');
      return;
    }
    if (this.ignored.has(uid) || this.book.has(uid)) return;
    const anyIP = podIP(pod);
    if (event.initial && anyIP !== undefined && this.options.probe.mode === 'precise') {
      this.ignored.add(uid);
      this.book.skip('pre-existing');
      return;
    }
    if (anyIP === undefined) return; // wait for the update that assigns an IP
    const ip = podIP(pod, this.options.probe.ipFamily);
    if (ip === undefined) {
      this.ignored.add(uid);
      this.book.skip('no-address-in-family');
      return;
    }
    if (this.book.claim(uid) !== 'claimed') {
      this.ignored.add(uid); // counted once, as beyond-max-targets
      return;
    }
    this.ipBook.claim(uid);
    this.start(uid, pod, ip, event.receivedAt);
  }

  private start(uid: string, pod: Pod, ip: string, ipSeenAt: number): void {
    const fields = {
      pod: pod.metadata?.name,
      namespace: pod.metadata?.namespace,
      ip,
      ipFamily: familyOf(ip),
      port: this.options.targets.targetPort,
    };
    const created = creationTime(pod);
    if (created === undefined) this.ipBook.unreached(uid, 'no-creation-timestamp');
    else {
      const recorded = this.ipBook.reached(uid, ipSeenAt - created);
      this.logger.info('target pod has an IP address', {
        ...fields,
        ipAssignedLatencySeconds: recorded.seconds,
        ...(recorded.negative ? { clockSkew: true } : {}),
      });
    }
    const probe = this.prober
      .run({
        key: uid,
        measurement: 'pod_creation_reachability',
        host: ip,
        port: this.options.targets.targetPort,
        goal: 'reachable',
        matcher: this.matcher,
        deadline: this.prober.deadlineFrom(ipSeenAt),
      })
      .then((outcome) => {
        if (outcome.status === 'done') {
          const recorded = this.book.reached(uid, outcome.at - ipSeenAt);
          this.logger.info('target pod reached', {
            ...fields,
            latencySeconds: seconds(outcome.at - ipSeenAt),
            recordedSeconds: recorded.seconds,
            attempts: outcome.attempts,
          });
        } else {
          const reason = outcome.status === 'stopped' ? outcome.reason : 'deadline';
          this.book.unreached(uid, reason);
          this.logger.warn('target pod never reached', {
            ...fields,
            reason,
            attempts: outcome.attempts,
            ...(outcome.status === 'deadline' && outcome.lastResult ? { lastResult: outcome.lastResult } : {}),
          });
        }
      });
    this.probes.add(probe);
    void probe.finally(() => this.probes.delete(probe));
  }
}
