import { Counter, type Registry } from 'prom-client';
import type { IPFamily } from '../model/types.js';
import { metricsOn } from '@kpng/kit';

export const NFTABLES_SYNC_FAILURES = 'kubeproxy_sync_proxy_rules_nftables_sync_failures_total';

/**
 * Counts failed nft transactions under kube-proxy's nftables name, for every backend that writes
 * nftables (the nft backend's tables, the IPVS backend's `kpng-ipvs` filter table).
 */
export function createNftablesSyncFailures(registry: Registry): (family: IPFamily) => void {
  return familyFailureCounter(registry, NFTABLES_SYNC_FAILURES, '[ALPHA] Cumulative proxy nftables sync failures');
}

/** A `{ip_family}` failure counter: registers it, or reuses the one another backend on the same registry registered. */
export function familyFailureCounter(registry: Registry, name: string, help: string): (family: IPFamily) => void {
  const failures = metricsOn(registry)(Counter, { name, help, labelNames: ['ip_family'] });
  return (family) => failures.inc({ ip_family: family });
}
