import { exposedMetrics } from '@kpng/kit/testing';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createIptablesMetrics, registerNfacctMetrics } from './metrics.js';

/** kube-proxy's sync-duration layout (core's EXP_BUCKETS), as exposed. */
const EXP = 'le=0.001,0.002,0.004,0.008,0.016,0.032,0.064,0.128,0.256,0.512,1.024,2.048,4.096,8.192,16.384,+Inf';

// Upstream's names (kube-proxy's iptables mode): dashboards and alerts read them, pinned here.
describe('the iptables backend metrics', () => {
  it('expose upstream names, types, labels and help', async () => {
    const registry = new Registry();
    const metrics = createIptablesMetrics(registry);
    metrics.restoreFailed('IPv4', true);
    metrics.rules('IPv6', { filter: 1, nat: 2 }, { filter: 3, nat: 4 });
    metrics.conntrackCleaned('IPv4', 2, 0.01);
    registerNfacctMetrics(registry, async (object) => object.length);
    expect(await exposedMetrics(registry)).toEqual([
      'counter kubeproxy_conntrack_reconciler_deleted_entries_total{ip_family} [ALPHA] Cumulative conntrack flows deleted by conntrack reconciler',
      `histogram kubeproxy_conntrack_reconciler_sync_duration_seconds{ip_family} [ALPHA] ReconcileConntrackFlowsLatency latency in seconds ${EXP}`,
      'counter kubeproxy_iptables_ct_state_invalid_dropped_packets_total{} [ALPHA] packets dropped by iptables to work around conntrack problems',
      'counter kubeproxy_iptables_localhost_nodeports_accepted_packets_total{} [ALPHA] Number of packets accepted on nodeports of loopback interface',
      'gauge kubeproxy_sync_proxy_rules_iptables_last{ip_family,table} [ALPHA] Number of iptables rules written by kube-proxy in last sync',
      'counter kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total{ip_family} [ALPHA] Cumulative proxy iptables partial restore failures',
      'counter kubeproxy_sync_proxy_rules_iptables_restore_failures_total{ip_family} [ALPHA] Cumulative proxy iptables restore failures',
      'gauge kubeproxy_sync_proxy_rules_iptables_total{ip_family,table} [ALPHA] Total number of iptables rules owned by kube-proxy',
    ]);
  });

  it('are declared once per registry: a second backend on it shares them', async () => {
    const registry = new Registry();
    createIptablesMetrics(registry).restoreFailed('IPv4', true);
    createIptablesMetrics(registry).restoreFailed('IPv4', true);
    const json = await registry.getMetricsAsJSON();
    const partial = json.find((m) => m.name === 'kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total');
    expect(partial?.values.map((v) => v.value)).toEqual([2]);
  });
});
