import { exposedMetrics } from '@kpng/kit/testing';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createIpvsMetrics } from './metrics.js';

/** kube-proxy's sync-duration layout (core's EXP_BUCKETS), as exposed. */
const EXP = 'le=0.001,0.002,0.004,0.008,0.016,0.032,0.064,0.128,0.256,0.512,1.024,2.048,4.096,8.192,16.384,+Inf';

// Upstream's names where ipvs mode has them, kpng's for the rest: dashboards read them, pinned here.
describe('the IPVS backend metrics', () => {
  it('expose their names, types, labels and help', async () => {
    const registry = new Registry();
    const metrics = createIpvsMetrics(registry);
    metrics.nftFailed('IPv4');
    metrics.netlinkFailed('new-service');
    metrics.tableSize('IPv6', 3, 5, 1);
    metrics.conntrackCleaned('IPv4', 2, 0.01);
    expect(await exposedMetrics(registry)).toEqual([
      'gauge kpng_ipvs_draining_real_servers{ip_family} real servers at weight 0 waiting for their connections',
      'counter kpng_ipvs_netlink_failures_total{operation} IPVS netlink calls the kernel refused',
      'gauge kpng_ipvs_real_servers{ip_family} IPVS real servers programmed by the last sync',
      'gauge kpng_ipvs_virtual_servers{ip_family} IPVS virtual servers programmed by the last sync',
      'counter kubeproxy_conntrack_reconciler_deleted_entries_total{ip_family} [ALPHA] Cumulative conntrack flows deleted by conntrack reconciler',
      `histogram kubeproxy_conntrack_reconciler_sync_duration_seconds{ip_family} [ALPHA] ReconcileConntrackFlowsLatency latency in seconds ${EXP}`,
      'counter kubeproxy_sync_proxy_rules_iptables_restore_failures_total{ip_family} [ALPHA] Cumulative proxy iptables restore failures',
      'counter kubeproxy_sync_proxy_rules_nftables_sync_failures_total{ip_family} [ALPHA] Cumulative proxy nftables sync failures',
    ]);
  });

  it('are declared once per registry: a second backend on it shares them', async () => {
    const registry = new Registry();
    createIpvsMetrics(registry).netlinkFailed('new-service');
    createIpvsMetrics(registry).netlinkFailed('new-service');
    const json = await registry.getMetricsAsJSON();
    const netlink = json.find((m) => m.name === 'kpng_ipvs_netlink_failures_total');
    expect(netlink?.values.map((v) => v.value)).toEqual([2]);
  });
});
