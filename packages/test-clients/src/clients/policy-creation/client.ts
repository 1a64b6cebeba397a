import { setMaxListeners } from 'node:events';
import type { ProbeSettings, TargetSettings } from '../../config/common.js';
import { familyOf, keyOf, podIP, type Pod } from '../../kube/objects.js';
import type { ObjectEvent, ObjectStream } from '../../kube/stream.js';
import type { PolicyMetrics } from '../../metrics/client-metrics.js';
import { connectMatcher, httpReplyMatcher, type SuccessMatcher } from '../../probe/matcher.js';
import { Prober } from '../../probe/prober.js';
import { TargetBook } from '../../probe/target-book.js';
import { aborted } from '../../util/abort.js';
import { seconds } from '../../util/log.js';
import type { ClientContext } from '../context.js';
import type { AllowLookup, PolicyTracker } from './policy-tracker.js';

export interface PolicyCreationOptions {
  readonly targets: TargetSettings;
  readonly probe: ProbeSettings;
  readonly allowPolicyName: string;
  /** Also measure revocation: `policy_enforcement_latency_policy_deletion_seconds`. */
  readonly measureDeletion: boolean;
  readonly pods: ObjectStream<Pod>;
  readonly policies: PolicyTracker;
  readonly metrics: PolicyMetrics;
}

interface Target {
  readonly key: string;
  readonly name: string;
  readonly namespace: string;
  probing: boolean;
}

/**
 * Policy-creation enforcement latency, and (optionally) revocation latency.
 *
 * The target pods are the first MaxTargets pods of the initial (paginated) list. Each is probed
 * from the start, while a deny policy is in force, until it first answers; the sample is that
 * moment minus the allow policy's creation (see `creationStart` for where that comes from). A pod
 * still without an IP is waited for, not skipped; an answer while the allow policy does not exist
 * means the deny policy was not in force, and is counted as skipped, not recorded.
 *
 * With `measureDeletion`, every reached target is then probed again once revocation is seen (the
 * allow policy deleted, or the deny policy created) until a connection first fails: that attempt's
 * start minus the revocation is the deletion sample.
 *
 * Upstream mode (the default) keeps upstream's semantics: the start is always the allow policy's
 * creationTimestamp (whole seconds), even when a watch would know better; pods listed without an
 * IP are skipped (counted), not waited for; probes are curl-like (one after another, an HTTP reply).
 */
export class PolicyCreationClient {
  readonly creation: TargetBook;
  /** Only with `measureDeletion`. */
  readonly deletion: TargetBook | undefined;
  private readonly prober: Prober;
  private readonly targets = new Map<string, Target>();
  private readonly work = new Set<Promise<void>>();
  private readonly logger;
  private readonly stopping = new AbortController();
  private readonly matcher: SuccessMatcher;

  constructor(
    private readonly options: PolicyCreationOptions,
    private readonly ctx: ClientContext,
  ) {
    const { metrics } = options;
    const mode = options.probe.mode;
    this.creation = new TargetBook({
      measurement: 'policy_creation',
      tracking: metrics.tracking,
      observe: metrics.creation,
      mode,
    });
    this.deletion =
      options.measureDeletion && metrics.deletion
        ? new TargetBook({
            measurement: 'policy_deletion',
            tracking: metrics.tracking,
            observe: metrics.deletion,
            mode,
          })
        : undefined;
    this.matcher = mode === 'upstream' ? httpReplyMatcher : connectMatcher;
    this.prober = new Prober({ clock: ctx.clock, dialer: ctx.dialer, tracking: metrics.tracking }, options.probe);
    this.logger = ctx.logger.with({ measurement: 'policy_creation' });
    setMaxListeners(0, this.stopping.signal); // every target waiting for revocation listens
  }

  /** Resolves when every target has been measured (reached or not), or when `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const { targetNamespace, targetLabelSelector } = this.options.targets;
    const watching = new AbortController();
    const stopAll = (): void => {
      watching.abort();
      this.stopping.abort();
    };
    signal.addEventListener('abort', stopAll, { once: true });
    const policyWatch = this.options.policies.run(watching.signal);
    this.logger.info('listing target pods', {
      namespace: targetNamespace,
      labelSelector: targetLabelSelector,
      maxTargets: this.options.targets.maxTargets,
    });
    const initial: Pod[] = [];
    let listed = false;
    const stream = this.options.pods.run(
      {
        event: (event) => (listed ? this.onEvent(event) : event.type !== 'deleted' && initial.push(event.object)),
        synced: () => {
          listed = true;
          this.selectTargets(initial);
        },
      },
      watching.signal,
    );
    const streamFailed = stream.then(
      () => undefined,
      (error: unknown) => {
        this.logger.error('cannot list target pods; giving up', { error });
        return 'failed' as const;
      },
    );
    const complete = Promise.all([this.creation.done, this.deletion?.done]).then(() => 'complete' as const);
    const outcome = await Promise.race([complete, streamFailed, aborted(signal)]);
    stopAll();
    signal.removeEventListener('abort', stopAll);
    if (outcome !== 'complete') {
      this.prober.stopAll('shutdown');
      await Promise.all(this.work);
      this.creation.abandonAll('shutdown');
      this.deletion?.abandonAll('shutdown');
    }
    await Promise.all([stream.catch(() => undefined), policyWatch, ...this.work]);
    if (outcome === 'complete') this.logger.info('measurement complete', { targets: this.targets.size });
  }

  private selectTargets(pods: readonly Pod[]): void {
    const sorted = [...pods].sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
    let chosen = sorted.slice(0, this.options.targets.maxTargets);
    for (let i = chosen.length; i < sorted.length; i++) this.creation.skip('beyond-max-targets');
    if (this.options.probe.mode === 'upstream') {
      // Upstream probes only the listed pods that have an IP, and skips the rest for good.
      const withIP = chosen.filter((pod) => podIP(pod) !== undefined);
      for (let i = withIP.length; i < chosen.length; i++) this.creation.skip('no-address');
      chosen = withIP;
    }
    this.logger.info('target pods listed', { listed: pods.length, targets: chosen.length });
    if (chosen.length === 0)
      this.logger.error('no target pods found: nothing to measure', {
        namespace: this.options.targets.targetNamespace,
      });
    for (const pod of chosen) {
      const key = pod.metadata?.uid ?? keyOf(pod);
      this.targets.set(key, {
        key,
        name: pod.metadata?.name ?? '',
        namespace: pod.metadata?.namespace ?? '',
        probing: false,
      });
      this.creation.claim(key);
    }
    this.creation.close();
    this.creationSettled();
    for (const pod of chosen) this.maybeStart(pod);
  }

  private onEvent(event: ObjectEvent<Pod>): void {
    const key = event.object.metadata?.uid ?? keyOf(event.object);
    const target = this.targets.get(key);
    if (!target) return;
    if (event.type === 'deleted') {
      if (target.probing) this.prober.stop(key, 'deleted');
      else if (this.creation.isOpen(key)) {
        this.creation.unreached(key, 'deleted');
        this.creationSettled();
      }
      return;
    }
    this.maybeStart(event.object);
  }

  /** Starts probing a target once it has an address in the wanted family. */
  private maybeStart(pod: Pod): void {
    const key = pod.metadata?.uid ?? keyOf(pod);
    const target = this.targets.get(key);
    if (!target || target.probing || !this.creation.isOpen(key)) return;
    if (podIP(pod) === undefined) return; // wait for the update that assigns one
    const ip = podIP(pod, this.options.probe.ipFamily);
    if (ip === undefined) {
      this.creation.unreached(key, 'no-address-in-family');
      this.creationSettled();
      return;
    }
    target.probing = true;
    this.track(this.measureCreation(target, ip));
  }

  private async measureCreation(target: Target, ip: string): Promise<void> {
    const fields = {
      pod: target.name,
      namespace: target.namespace,
      ip,
      ipFamily: familyOf(ip),
      port: this.options.targets.targetPort,
    };
    this.logger.info('probing target pod', fields);
    const outcome = await this.prober.run({
      key: target.key,
      measurement: 'policy_creation',
      host: ip,
      port: this.options.targets.targetPort,
      goal: 'reachable',
      matcher: this.matcher,
      deadline: this.prober.deadlineFrom(this.ctx.clock.now()),
    });
    if (outcome.status !== 'done') {
      const reason = outcome.status === 'stopped' ? outcome.reason : 'deadline';
      this.creation.unreached(target.key, reason);
      this.creationSettled();
      this.logger.warn('target pod never reached', { ...fields, reason, attempts: outcome.attempts });
      return;
    }
    const start = this.startFor(await this.options.policies.allowCreation(this.stopping.signal));
    if (start === 'not-found' || start === 'error') {
      const reason = this.stopping.signal.aborted
        ? 'shutdown'
        : start === 'not-found'
          ? 'reachable-without-allow-policy'
          : 'allow-policy-unknown';
      this.creation.unreached(target.key, reason);
      this.creationSettled();
      this.logger.warn('target pod answered but the allow policy is unknown: no sample', {
        ...fields,
        reason,
        policy: this.options.allowPolicyName,
      });
      return;
    }
    const recorded = this.creation.reached(target.key, outcome.at - start.at, start.source);
    this.logger.info('target pod reached after policy creation', {
      ...fields,
      latencySeconds: seconds(outcome.at - start.at),
      recordedSeconds: recorded.seconds,
      startSource: start.source,
      ...(start.creationTimestamp !== undefined
        ? { latencyFromCreationTimestampSeconds: seconds(outcome.at - start.creationTimestamp) }
        : {}),
      attempts: outcome.attempts,
    });
    const measureDeletion = this.deletion?.claim(target.key) === 'claimed';
    this.creationSettled();
    if (measureDeletion) await this.measureDeletion(target, ip, fields);
  }

  /** Upstream mode measures from the creationTimestamp whatever else is known. */
  private startFor(lookup: AllowLookup): AllowLookup {
    if (this.options.probe.mode !== 'upstream' || typeof lookup === 'string') return lookup;
    const created = lookup.creationTimestamp;
    return created === undefined ? 'error' : { at: created, source: 'creationTimestamp', creationTimestamp: created };
  }

  /** Once creation is complete no target can join the deletion measurement: close it. */
  private creationSettled(): void {
    if (this.creation.complete) this.deletion?.close();
  }

  private async measureDeletion(target: Target, ip: string, fields: Record<string, unknown>): Promise<void> {
    const { policies } = this.options;
    const deletion = this.deletion;
    if (!deletion) return;
    const revoked = await Promise.race([policies.revoked, policies.watchLost, aborted(this.stopping.signal)]);
    if (revoked === 'aborted') return; // abandoned as 'shutdown' by run()
    if (typeof revoked === 'string') {
      // Without a watch on networkpolicies revocation cannot be seen: say so rather than wait forever.
      deletion.unreached(target.key, revoked === 'forbidden' ? 'no-watch-permission' : 'watch-failed');
      return;
    }
    const outcome = await this.prober.run({
      key: target.key,
      measurement: 'policy_deletion',
      host: ip,
      port: this.options.targets.targetPort,
      goal: 'unreachable',
      matcher: this.matcher,
      deadline: this.prober.deadlineFrom(Math.max(revoked.at, this.ctx.clock.now())),
    });
    if (!deletion.isOpen(target.key)) return;
    if (outcome.status !== 'done') {
      const reason = outcome.status === 'stopped' ? outcome.reason : 'deadline';
      deletion.unreached(target.key, reason);
      this.logger.warn('target pod still reachable after revocation', {
        ...fields,
        measurement: 'policy_deletion',
        reason,
        attempts: outcome.attempts,
      });
      return;
    }
    const recorded = deletion.reached(target.key, outcome.at - revoked.at, revoked.source);
    this.logger.info('target pod unreachable after revocation', {
      ...fields,
      measurement: 'policy_deletion',
      latencySeconds: seconds(outcome.at - revoked.at),
      recordedSeconds: recorded.seconds,
      startSource: revoked.source,
      attempts: outcome.attempts,
    });
  }

  private track(work: Promise<void>): void {
    const tracked = work.catch((error: unknown) => this.logger.error('measurement failed', { error }));
    this.work.add(tracked);
    void tracked.finally(() => this.work.delete(tracked));
  }
}
