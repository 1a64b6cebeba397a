import type { IPFamily } from '../model/types.js';
import type { Clock } from '../util/clock.js';

/** Where health answers are counted (`CoreMetrics` fits). */
export interface HealthCounters {
  healthzAnswered(code: number): void;
  livezAnswered(code: number): void;
}

export interface ProxyHealthOptions {
  readonly clock: Clock;
  /** The proxy is unhealthy once an update has waited 2 x syncPeriod without a successful sync. */
  readonly syncPeriodMs: number;
  readonly metrics?: HealthCounters;
}

export interface HealthReply {
  readonly status: 200 | 503;
  /** JSON. */
  readonly body: string;
}

/** Go's zero time (0001-01-01T00:00:00Z), which upstream reports as `lastUpdated` before the first update. */
const GO_ZERO_TIME_MS = -62_135_596_800_000;

/** One family's part of a reply (upstream's `ProxierHealth`). */
interface FamilyHealth {
  readonly lastUpdated: string;
  readonly healthy: boolean;
}

/**
 * kube-proxy's ProxyHealthServer bookkeeping (observability doc section 5, and upstream's current
 * `proxy_health.go`). Each family keeps the time of its last successful sync and of its oldest
 * update still waiting for one; a family that has synced at least once is healthy while no such
 * update is older than 2 x syncPeriod. Ages are measured on the monotonic clock, so a wall-clock
 * step cannot flip health; timestamps in replies are wall-clock, in Go's RFC 3339 form.
 */
export class ProxyHealth {
  /**
   * False while the Node is unknown (upstream: no Node object yet) and once it is being deleted
   * (deletionTimestamp, or the autoscaler's ToBeDeleted taint). The runtime sets it from every state.
   */
  nodeEligible = false;
  private readonly oldestPending = new Map<IPFamily, number>();
  /** Wall-clock ms of the last successful sync, per family. */
  private readonly lastUpdated = new Map<IPFamily, number>();
  private readonly timeoutMs: number;

  constructor(private readonly opts: ProxyHealthOptions) {
    this.timeoutMs = 2 * opts.syncPeriodMs;
  }

  /**
   * A sync was requested for `family` (at `at`, monotonic ms; now by default); only the oldest
   * pending request is remembered.
   */
  queuedUpdate(family: IPFamily, at: number = this.opts.clock.monotonic()): void {
    if (!this.oldestPending.has(family)) this.oldestPending.set(family, at);
  }

  /** A sync for `family` succeeded: nothing is pending any more. */
  updated(family: IPFamily): void {
    this.oldestPending.delete(family);
    this.lastUpdated.set(family, this.opts.clock.now());
  }

  /** The proxy no longer programs `family` (the node turned out to be single-stack): it stops counting. */
  forget(family: IPFamily): void {
    this.oldestPending.delete(family);
    this.lastUpdated.delete(family);
  }

  /** Freshness alone, without the node-eligibility term (what `/livez` and service health checks use). */
  isHealthy(): boolean {
    return [...this.lastUpdated.keys()].every((family) => this.familyHealthy(family));
  }

  /** `/healthz`: fresh AND node eligible; on 200, `lastUpdated` is reported as now (upstream's compatibility rule). */
  healthz(): HealthReply {
    const nodeEligible = this.nodeEligible;
    const healthy = this.isHealthy();
    const status = healthy && nodeEligible ? 200 : 503;
    this.opts.metrics?.healthzAnswered(status);
    return { status, body: JSON.stringify(this.reply(status, healthy, nodeEligible)) };
  }

  /** `/livez`: freshness only; the body has no `nodeEligible`. */
  livez(): HealthReply {
    const healthy = this.isHealthy();
    const status = healthy ? 200 : 503;
    this.opts.metrics?.livezAnswered(status);
    return { status, body: JSON.stringify(this.reply(status, healthy, undefined)) };
  }

  private familyHealthy(family: IPFamily): boolean {
    const queuedAt = this.oldestPending.get(family);
    return queuedAt === undefined || this.opts.clock.monotonic() - queuedAt < this.timeoutMs;
  }

  /** Upstream's `ProxyHealth` JSON, its fields in its order; `status` is left out when empty (omitempty). */
  private reply(status: 200 | 503, healthy: boolean, nodeEligible: boolean | undefined): object {
    const now = this.opts.clock.now();
    const last = status === 200 ? now : Math.max(GO_ZERO_TIME_MS, ...this.lastUpdated.values());
    const families: Partial<Record<IPFamily, FamilyHealth>> = {};
    for (const [family, at] of this.lastUpdated)
      families[family] = { lastUpdated: goTime(at), healthy: this.familyHealthy(family) };
    return {
      lastUpdated: goTime(last),
      currentTime: goTime(now),
      ...(nodeEligible === undefined ? {} : { nodeEligible }),
      healthy,
      ...(Object.keys(families).length > 0 ? { status: families } : {}),
    };
  }
}

/** Go's `time.Time` JSON (RFC 3339 with the fraction's trailing zeros dropped): `2025-01-01T00:00:00.5Z`. */
export function goTime(epochMs: number): string {
  return new Date(epochMs)
    .toISOString()
    .replace(/\.(\d*?)0*Z$/, (_m, digits: string) => (digits === '' ? 'Z' : `.${digits}Z`));
}
