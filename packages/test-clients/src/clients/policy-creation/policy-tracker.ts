import { Backoff } from '@kpng/kit';
import type { KubeObject } from '../../kube/objects.js';
import type { ObjectEvent, ObjectStream } from '../../kube/stream.js';
import { sleep, type Clock } from '../../util/clock.js';
import type { Logger } from '../../util/log.js';
import { creationStart, type StartTime } from './start-time.js';

export interface PolicyTrackerOptions {
  readonly allowPolicyName: string;
  /** '' : revocation is the deletion of the allow policy; otherwise the creation of this policy. */
  readonly denyPolicyName: string;
  /** NetworkPolicies in HostNamespace. Optional: without watch permission only GET is used. */
  readonly policies: ObjectStream<KubeObject>;
  /** GET one policy in HostNamespace; undefined when it does not exist. */
  readonly getPolicy: (name: string, signal: AbortSignal) => Promise<KubeObject | undefined>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** GET retries on errors other than 404 (upstream drops the sample on the first failure). */
  readonly getAttempts?: number;
  readonly getBackoffMs?: number;
}

export type WatchState = 'starting' | 'watching' | 'forbidden' | 'failed' | 'stopped';

export type AllowLookup = StartTime | 'not-found' | 'error';

/**
 * What the policy-creation client knows about its policies: when the allow policy was created
 * (from the watch when it can, from a GET otherwise, which is all clusterloader2's RBAC allows:
 * `networkpolicies: get`), and when access was revoked (the allow policy deleted, or the deny
 * policy created), which only a watch can see.
 */
export class PolicyTracker {
  #state: WatchState = 'starting';
  #allow: { readonly object: KubeObject; readonly seenLiveAt: number | undefined } | undefined;
  #revoke!: (start: StartTime) => void;
  #revokedAt: StartTime | undefined;
  /** Resolves when revocation is seen (never, without a watch). */
  readonly revoked: Promise<StartTime> = new Promise((resolve) => (this.#revoke = resolve));
  #watchLost!: (state: WatchState) => void;
  /** Resolves if the watch is refused or fails for good: revocation can then never be seen. */
  readonly watchLost: Promise<WatchState> = new Promise((resolve) => (this.#watchLost = resolve));

  constructor(private readonly options: PolicyTrackerOptions) {}

  get watchState(): WatchState {
    return this.#state;
  }

  get revocation(): StartTime | undefined {
    return this.#revokedAt;
  }

  /** Watches the policies until `signal` aborts, or until the watch is refused. */
  async run(signal: AbortSignal): Promise<void> {
    try {
      await this.options.policies.run(
        { event: (e) => this.onEvent(e), synced: () => (this.#state = 'watching') },
        signal,
      );
      this.#state = 'stopped';
    } catch (error) {
      const forbidden = (error as { statusCode?: unknown }).statusCode === 403;
      this.#state = forbidden ? 'forbidden' : 'failed';
      this.#watchLost(this.#state);
      this.options.logger.warn(
        forbidden
          ? 'no permission to watch networkpolicies: allow-policy times come from GET (whole seconds); revocation cannot be measured'
          : 'networkpolicy watch failed',
        { error },
      );
    }
  }

  /** When the allow policy was created; 'not-found' when it does not exist (yet). */
  async allowCreation(signal: AbortSignal): Promise<AllowLookup> {
    const known = (): AllowLookup | undefined =>
      this.#allow ? (creationStart(this.#allow.object, this.#allow.seenLiveAt) ?? 'error') : undefined;
    const seen = known();
    if (seen !== undefined) return seen;
    const attempts = this.options.getAttempts ?? 5;
    const backoff = new Backoff({ initialMs: this.options.getBackoffMs ?? 200 });
    for (let i = 1; i <= attempts && !signal.aborted; i++) {
      try {
        const policy = await this.options.getPolicy(this.options.allowPolicyName, signal);
        const seenMeanwhile = known();
        if (seenMeanwhile !== undefined) return seenMeanwhile;
        if (policy === undefined) return 'not-found';
        return creationStart(policy, undefined) ?? 'error';
      } catch (error) {
        this.options.logger.warn('cannot get the allow policy', {
          policy: this.options.allowPolicyName,
          attempt: i,
          error,
        });
        const delayMs = backoff.next();
        if (i < attempts) await sleep(this.options.clock, delayMs, signal);
      }
    }
    return 'error';
  }

  private onEvent(event: ObjectEvent<KubeObject>): void {
    const name = event.object.metadata?.name;
    const { allowPolicyName, denyPolicyName } = this.options;
    if (name === allowPolicyName) {
      if (event.type === 'deleted') {
        this.#allow = undefined;
        if (!event.initial && denyPolicyName === '')
          this.revoke({ at: event.receivedAt, source: 'watch' }, 'allow policy deleted');
      } else if (this.#allow === undefined) {
        this.#allow = { object: event.object, seenLiveAt: event.initial ? undefined : event.receivedAt };
        if (!event.initial)
          this.options.logger.info('allow policy created', {
            policy: name,
            seenAt: new Date(event.receivedAt).toISOString(),
          });
      }
    } else if (denyPolicyName !== '' && name === denyPolicyName && event.type === 'added' && !event.initial) {
      const start = creationStart(event.object, event.receivedAt);
      if (start) this.revoke(start, 'deny policy created');
    }
  }

  private revoke(start: StartTime, what: string): void {
    if (this.#revokedAt) return;
    this.#revokedAt = start;
    this.options.logger.info(what, { startSource: start.source, seenAt: new Date(start.at).toISOString() });
    this.#revoke(start);
  }
}
