import type { Registry } from 'prom-client';
import type { IPFamily } from '../model/types.js';
import { familyFailureCounter } from './nftables-sync.js';

export const IPTABLES_RESTORE_FAILURES = 'kubeproxy_sync_proxy_rules_iptables_restore_failures_total';

/**
 * Counts failed filtering writes under upstream's iptables name: the iptables backend's
 * `iptables-restore` runs, and the IPVS backend's filter writes (upstream's ipvs mode filters with
 * iptables-restore and counts its failures here; dashboards for ipvs mode watch this name).
 */
export function createIptablesRestoreFailures(registry: Registry): (family: IPFamily) => void {
  return familyFailureCounter(
    registry,
    IPTABLES_RESTORE_FAILURES,
    '[ALPHA] Cumulative proxy iptables restore failures',
  );
}
