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

/**
 * kube-proxy's ProxyHealthServer bookkeeping (observability doc section 5). Each family keeps the
 * time of its oldest update still waiting for a sync; the proxy is healthy while every such update
 * is younger than 2 x syncPeriod. Ages are measured on the monotonic clock, so a wall-clock step
 * cannot flip health; timestamps in replies are wall-clock.
 */
export class ProxyHealth {
  /** False once the Node is being deleted (deletionTimestamp, or the autoscaler's ToBeDeleted taint). */
  nodeEligible = true;
  private readonly oldestPending = new Map<IPFamily, number>();
  private readonly lastUpdated = new Map<IPFamily, number>();
  private readonly timeoutMs: number;

  constructor(private readonly opts: ProxyHealthOptions) {
    this.timeoutMs = 2 * opts.syncPeriodMs;
  }

  /** A sync was requested for `family`; only the oldest pending request is remembered. */
  queuedUpdate(family: IPFamily): void {
    if (!this.oldestPending.has(family)) this.oldestPending.set(family, this.opts.clock.monotonic());
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
    const now = this.opts.clock.monotonic();
    for (const queuedAt of this.oldestPending.values()) {
      if (now - queuedAt >= this.timeoutMs) return false;
    }
    return true;
  }

  /** `/healthz`: fresh AND node eligible; on 200, `lastUpdated` is reported as now (upstream's compatibility rule). */
  healthz(): HealthReply {
    const nodeEligible = this.nodeEligible;
    const status = this.isHealthy() && nodeEligible ? 200 : 503;
    this.opts.metrics?.healthzAnswered(status);
    return { status, body: JSON.stringify({ ...this.times(status), nodeEligible }) };
  }

  /** `/livez`: freshness only; the body has no `nodeEligible`. */
  livez(): HealthReply {
    const status = this.isHealthy() ? 200 : 503;
    this.opts.metrics?.livezAnswered(status);
    return { status, body: JSON.stringify(this.times(status)) };
  }

  private times(status: 200 | 503): { lastUpdated: string; currentTime: string } {
    const now = this.opts.clock.now();
    const last = status === 200 ? now : Math.max(GO_ZERO_TIME_MS, ...this.lastUpdated.values());
    return { lastUpdated: new Date(last).toISOString(), currentTime: new Date(now).toISOString() };
  }
}
