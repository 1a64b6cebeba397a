import { exposedMetrics } from '@kpng/kit/testing';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createConntrackMetrics } from '../conntrack/metrics.js';
import { renderRefusals } from '../guard/render-refusals.js';
import { RecordingLogger } from '../sync/recording-logger.js';
import { httpRefusals } from './http-door.js';
import { createIptablesRestoreFailures } from './iptables-restore.js';
import { registerKubeWatchMetrics } from './kube-watch.js';
import { createNftablesSyncFailures } from './nftables-sync.js';
import { registerRestClientMetrics } from './rest-client.js';

/** kube-proxy's sync-duration layout (EXP_BUCKETS), as exposed. */
const EXP = 'le=0.001,0.002,0.004,0.008,0.016,0.032,0.064,0.128,0.256,0.512,1.024,2.048,4.096,8.192,16.384,+Inf';

// The metrics core declares for the backends and the kube source: upstream's names where upstream
// has them. Dashboards and alerts read names, types, labels, help and buckets: pinned here.
describe('metrics core declares for others', () => {
  it('expose their names, types, labels, help and buckets', async () => {
    const registry = new Registry();
    createConntrackMetrics(registry)('IPv4', 2, 0.01);
    createIptablesRestoreFailures(registry)('IPv4');
    createNftablesSyncFailures(registry)('IPv6');
    const watch = registerKubeWatchMetrics(registry);
    watch.reconnected('Service', 1.5);
    watch.reportDownSeconds('Service', () => 0);
    registerRestClientMetrics(registry).observe({
      method: 'get',
      url: new URL('https://127.0.0.1:6443/api/v1/services'),
      status: 200,
      durationSeconds: 0.01,
    });
    renderRefusals({ backend: 'iptables', registry, log: new RecordingLogger() })({
      kind: 'Service',
      key: 'ns/web',
      reason: 'address',
      field: 'clusterIP',
      value: '"x"',
    });
    httpRefusals(registry).inc({ server: 'metrics', reason: 'timeout' });
    expect(await exposedMetrics(registry)).toEqual([
      'counter kpng_http_refused_requests_total{reason,server} HTTP requests and connections a kpng server refused, by server and reason (bad-request, headers-too-large, timeout, connection-limit, not-found, handler-error, accept-error)',
      'gauge kpng_kube_watch_down_seconds{kind} Time the kind has been without an open watch of the API server (0 while it has one), by kind',
      'histogram kpng_kube_watch_outage_seconds{kind} Time without an open watch before each reconnect, by kind le=0.01,0.05,0.1,0.25,0.5,1,2,5,10,30,60,120,300,600,+Inf',
      'counter kpng_kube_watch_reconnects_total{kind} Watches of the API server opened again after one was lost (routine watch timeouts included), by kind',
      'counter kpng_render_refused_total{backend,kind,reason} Services, endpoints and node addresses a backend left out of its render because a value failed validation.',
      'counter kubeproxy_conntrack_reconciler_deleted_entries_total{ip_family} [ALPHA] Cumulative conntrack flows deleted by conntrack reconciler',
      `histogram kubeproxy_conntrack_reconciler_sync_duration_seconds{ip_family} [ALPHA] ReconcileConntrackFlowsLatency latency in seconds ${EXP}`,
      'counter kubeproxy_sync_proxy_rules_iptables_restore_failures_total{ip_family} [ALPHA] Cumulative proxy iptables restore failures',
      'counter kubeproxy_sync_proxy_rules_nftables_sync_failures_total{ip_family} [ALPHA] Cumulative proxy nftables sync failures',
      'histogram rest_client_request_duration_seconds{host,verb} [ALPHA] Request latency in seconds. Broken down by verb, and host. le=0.005,0.025,0.1,0.25,0.5,1,2,4,8,15,30,60,+Inf',
      'counter rest_client_requests_total{code,host,method} [ALPHA] Number of HTTP requests, partitioned by status code, method, and host.',
    ]);
  });

  it('are declared once per registry: a second declaration shares the first', async () => {
    const registry = new Registry();
    createNftablesSyncFailures(registry)('IPv4');
    createNftablesSyncFailures(registry)('IPv4');
    const json = await registry.getMetricsAsJSON();
    const failures = json.find((m) => m.name === 'kubeproxy_sync_proxy_rules_nftables_sync_failures_total');
    expect(failures?.values.map((v) => v.value)).toEqual([2]);
  });
});
