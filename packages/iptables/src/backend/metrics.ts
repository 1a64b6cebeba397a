/**
 * The iptables-specific metrics under kube-proxy's names (observability doc 3.3). Core registers
 * the sync-loop metrics (durations, programming latency); a backend adds only these.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { metricsOn } from '@kpng/kit';
import { NFACCT_INVALID_DROPPED, NFACCT_LOCALHOST_NODEPORTS } from '../render/names.js';
import { createConntrackMetrics, createIptablesRestoreFailures, type IPFamily } from '@kpng/core';

export interface IptablesMetrics {
  /** An iptables-restore run failed (partial: it was a partial sync; the next one is full). */
  restoreFailed(family: IPFamily, partial: boolean): void;
  /** Rules written by the last sync, and rules owned after it, per table. */
  rules(
    family: IPFamily,
    written: Readonly<Record<'filter' | 'nat', number>>,
    total: Readonly<Record<'filter' | 'nat', number>>,
  ): void;
  /** Stale UDP conntrack entries removed after a sync. */
  conntrackCleaned(family: IPFamily, deleted: number, seconds: number): void;
}

/**
 * Upstream's two nfacct collectors (iptables mode): at each scrape, the packets of the node's
 * nfacct object. Left at its last value when the object cannot be read (upstream then emits nothing).
 */
export function registerNfacctMetrics(
  registry: Registry,
  packets: (name: string) => Promise<number | undefined>,
): void {
  const metric = metricsOn(registry);
  const counter = (name: string, help: string, object: string): void =>
    void metric(Counter, {
      name,
      help,
      async collect(this: Counter) {
        const value = await packets(object);
        if (value === undefined) return;
        this.reset();
        this.inc(value);
      },
    });
  counter(
    'kubeproxy_iptables_ct_state_invalid_dropped_packets_total',
    '[ALPHA] packets dropped by iptables to work around conntrack problems',
    NFACCT_INVALID_DROPPED,
  );
  counter(
    'kubeproxy_iptables_localhost_nodeports_accepted_packets_total',
    '[ALPHA] Number of packets accepted on nodeports of loopback interface',
    NFACCT_LOCALHOST_NODEPORTS,
  );
}

export const NO_METRICS: IptablesMetrics = { restoreFailed() {}, rules() {}, conntrackCleaned() {} };

/** Registers (or reuses, for a second backend on the same registry) the metrics. */
export function createIptablesMetrics(registry: Registry): IptablesMetrics {
  const metric = metricsOn(registry);
  const restoreFailed = createIptablesRestoreFailures(registry);
  const partialFailures = metric(Counter, {
    name: 'kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total',
    help: '[ALPHA] Cumulative proxy iptables partial restore failures',
    labelNames: ['ip_family'],
  });
  const total = metric(Gauge, {
    name: 'kubeproxy_sync_proxy_rules_iptables_total',
    help: '[ALPHA] Total number of iptables rules owned by kube-proxy',
    labelNames: ['table', 'ip_family'],
  });
  const last = metric(Gauge, {
    name: 'kubeproxy_sync_proxy_rules_iptables_last',
    help: '[ALPHA] Number of iptables rules written by kube-proxy in last sync',
    labelNames: ['table', 'ip_family'],
  });
  const conntrack = createConntrackMetrics(registry);
  return {
    conntrackCleaned: conntrack,
    restoreFailed: (family, partial) => {
      restoreFailed(family);
      if (partial) partialFailures.inc({ ip_family: family });
    },
    rules: (family, written, owned) => {
      for (const table of ['filter', 'nat'] as const) {
        last.set({ table, ip_family: family }, written[table]);
        total.set({ table, ip_family: family }, owned[table]);
      }
    },
  };
}
