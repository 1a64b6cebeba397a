/**
 * The nftables-specific metrics (observability doc 3.4 and 3.5), under kube-proxy's names. Core
 * registers the sync-loop metrics; a backend adds only these.
 */
import type { Registry } from 'prom-client';
import { createConntrackMetrics, createNftablesSyncFailures, type IPFamily } from '@kpng/core';

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
  return { syncFailed: createNftablesSyncFailures(registry), conntrackCleaned: createConntrackMetrics(registry) };
}
