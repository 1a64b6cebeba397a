/** The conntrack reconciler metrics (observability doc), shared by the Linux backends. */
import { Counter, Histogram, type Registry } from 'prom-client';
import { metricsOn } from '@kpng/kit';
import { EXP_BUCKETS } from '../metrics/buckets.js';
import type { IPFamily } from '../model/types.js';

/** Records one cleanup: how many entries it deleted and how long it took. */
export type ConntrackObserver = (family: IPFamily, deleted: number, seconds: number) => void;

/** Registers (or reuses, for a second backend on the same registry) the metrics. */
export function createConntrackMetrics(registry: Registry): ConntrackObserver {
  const metric = metricsOn(registry);
  const deleted = metric(Counter, {
    name: 'kubeproxy_conntrack_reconciler_deleted_entries_total',
    help: '[ALPHA] Cumulative conntrack flows deleted by conntrack reconciler',
    labelNames: ['ip_family'],
  });
  const duration = metric(Histogram, {
    name: 'kubeproxy_conntrack_reconciler_sync_duration_seconds',
    help: '[ALPHA] ReconcileConntrackFlowsLatency latency in seconds',
    labelNames: ['ip_family'],
    buckets: [...EXP_BUCKETS],
  });
  return (family, count, seconds) => {
    if (count > 0) deleted.inc({ ip_family: family }, count);
    duration.observe({ ip_family: family }, seconds);
  };
}
