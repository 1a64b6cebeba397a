/**
 * The nftables-specific metrics (observability doc 3.4 and 3.5), under kube-proxy's names. Core
 * registers the sync-loop metrics; a backend adds only these.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { IPFamily } from '@kpng/core';

export interface NftMetrics {
  /** An nft transaction failed (`kubeproxy_sync_proxy_rules_nftables_sync_failures_total`). */
  syncFailed(family: IPFamily): void;
  /** Stale UDP conntrack entries removed after a sync. */
  conntrackCleaned(family: IPFamily, deleted: number, seconds: number): void;
}

export const NO_METRICS: NftMetrics = { syncFailed() {}, conntrackCleaned() {} };

/** kube-proxy's EXP buckets: 0.001 s doubling, 15 bounds. */
const EXP_BUCKETS = Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i);

/**
 * Registers (or, for a second backend on the same registry, e.g. after a restart in-process,
 * reuses) the metrics.
 */
export function createNftMetrics(registry: Registry): NftMetrics {
  const registers = [registry];
  const existing = <T>(name: string): T | undefined => registry.getSingleMetric(name) as T | undefined;
  const failures = existing<Counter>('kubeproxy_sync_proxy_rules_nftables_sync_failures_total') ?? new Counter({
    name: 'kubeproxy_sync_proxy_rules_nftables_sync_failures_total',
    help: 'Number of failed nftables syncs',
    labelNames: ['ip_family'],
    registers,
  });
  const deleted = existing<Counter>('kubeproxy_conntrack_reconciler_deleted_entries_total') ?? new Counter({
    name: 'kubeproxy_conntrack_reconciler_deleted_entries_total',
    help: 'Number of stale conntrack entries deleted by the conntrack reconciler',
    labelNames: ['ip_family'],
    registers,
  });
  const duration = existing<Histogram>('kubeproxy_conntrack_reconciler_sync_duration_seconds') ?? new Histogram({
    name: 'kubeproxy_conntrack_reconciler_sync_duration_seconds',
    help: 'Duration of one stale conntrack entry cleanup, in seconds',
    labelNames: ['ip_family'],
    buckets: EXP_BUCKETS,
    registers,
  });
  return {
    syncFailed: (family) => failures.inc({ ip_family: family }),
    conntrackCleaned: (family, count, seconds) => {
      if (count > 0) deleted.inc({ ip_family: family }, count);
      duration.observe({ ip_family: family }, seconds);
    },
  };
}
