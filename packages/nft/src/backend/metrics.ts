/**
 * The nftables-specific metrics (observability doc 3.4 and 3.5), under kube-proxy's names. Core
 * registers the sync-loop metrics; a backend adds only these.
 */
import { Counter, type Registry } from 'prom-client';
import { createConntrackMetrics, type IPFamily } from '@kpng/core';

export interface NftMetrics {
  /** An nft transaction failed (`kubeproxy_sync_proxy_rules_nftables_sync_failures_total`). */
  syncFailed(family: IPFamily): void;
  /** Stale UDP conntrack entries removed after a sync. */
  conntrackCleaned(family: IPFamily, deleted: number, seconds: number): void;
}

export const NO_METRICS: NftMetrics = { syncFailed() {}, conntrackCleaned() {} };

/**
 * Registers (or, for a second backend on the same registry, e.g. after a restart in-process,
 * reuses) the metrics.
 */
export function createNftMetrics(registry: Registry): NftMetrics {
  const registers = [registry];
  const existing = <T>(name: string): T | undefined => registry.getSingleMetric(name) as T | undefined;
  const failures =
    existing<Counter>('kubeproxy_sync_proxy_rules_nftables_sync_failures_total') ??
    new Counter({
      name: 'kubeproxy_sync_proxy_rules_nftables_sync_failures_total',
      help: 'Number of failed nftables syncs',
      labelNames: ['ip_family'],
      registers,
    });
  const conntrack = createConntrackMetrics(registry);
  return {
    syncFailed: (family) => failures.inc({ ip_family: family }),
    conntrackCleaned: conntrack,
  };
}
