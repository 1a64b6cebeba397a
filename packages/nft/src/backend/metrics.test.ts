import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createNftMetrics } from './metrics.js';

describe('createNftMetrics', () => {
  it('exposes kube-proxy names and ip_family labels', async () => {
    const registry = new Registry();
    const metrics = createNftMetrics(registry);
    metrics.syncFailed('IPv6');
    metrics.conntrackCleaned('IPv4', 3, 0.002);
    metrics.conntrackCleaned('IPv4', 0, 0.001);
    const text = await registry.metrics();
    expect(text).toContain('kubeproxy_sync_proxy_rules_nftables_sync_failures_total{ip_family="IPv6"} 1');
    expect(text).toContain('kubeproxy_conntrack_reconciler_deleted_entries_total{ip_family="IPv4"} 3');
    expect(text).toContain('kubeproxy_conntrack_reconciler_sync_duration_seconds_count{ip_family="IPv4"} 2');
    expect(text).toContain('le="16.384"');
  });

  it('a second backend on the same registry shares the metrics', async () => {
    const registry = new Registry();
    createNftMetrics(registry).syncFailed('IPv4');
    createNftMetrics(registry).syncFailed('IPv4');
    expect(await registry.metrics()).toContain(
      'kubeproxy_sync_proxy_rules_nftables_sync_failures_total{ip_family="IPv4"} 2',
    );
  });
});
