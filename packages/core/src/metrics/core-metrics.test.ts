import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createCoreMetrics, type CoreMetrics } from './core-metrics.js';
import { invalidObjectsTotal } from './objects.js';
import { streamClientRefusedTotal } from './stream-client.js';

// The doc's tables (kube-proxy-observability.md sections 2 and 3), written out as literals so the
// test does not share a generator with the code under test.
const EXP = [0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1.024, 2.048, 4.096, 8.192, 16.384];
const FINE = [
  0.001, 0.0015, 0.002, 0.003, 0.005, 0.007, 0.01, 0.015, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.5, 0.7, 1, 1.5,
  2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 700, 1000, 1500, 2000, 3000, 5000, 7000,
];
const NPL = [
  0, 0.25, 0.5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
  29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57,
  58, 59, 60, 65, 70, 75, 80, 85, 90, 95, 100, 105, 110, 115, 120, 150, 180, 210, 240, 270, 300,
];

interface Expected {
  readonly name: string;
  readonly type: 'histogram' | 'gauge' | 'counter';
  readonly labels: readonly string[];
  readonly buckets?: readonly number[];
}

const EXPECTED: readonly Expected[] = [
  // 3.1 sync and change metrics
  { name: 'kubeproxy_sync_proxy_rules_duration_seconds', type: 'histogram', labels: ['ip_family'], buckets: EXP },
  { name: 'kubeproxy_sync_full_proxy_rules_duration_seconds', type: 'histogram', labels: ['ip_family'], buckets: EXP },
  {
    name: 'kubeproxy_sync_partial_proxy_rules_duration_seconds',
    type: 'histogram',
    labels: ['ip_family'],
    buckets: EXP,
  },
  { name: 'kubeproxy_sync_proxy_rules_last_timestamp_seconds', type: 'gauge', labels: ['ip_family'] },
  { name: 'kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds', type: 'gauge', labels: ['ip_family'] },
  { name: 'kubeproxy_network_programming_duration_seconds', type: 'histogram', labels: ['ip_family'], buckets: NPL },
  { name: 'kubeproxy_sync_proxy_rules_endpoint_changes_pending', type: 'gauge', labels: [] },
  { name: 'kubeproxy_sync_proxy_rules_endpoint_changes_total', type: 'counter', labels: [] },
  { name: 'kubeproxy_sync_proxy_rules_service_changes_pending', type: 'gauge', labels: [] },
  { name: 'kubeproxy_sync_proxy_rules_service_changes_total', type: 'counter', labels: [] },
  {
    name: 'kubeproxy_sync_proxy_rules_no_local_endpoints_total',
    type: 'gauge',
    labels: ['ip_family', 'traffic_policy'],
  },
  // 3.2 health counters
  { name: 'kubeproxy_proxy_healthz_total', type: 'counter', labels: ['code'] },
  { name: 'kubeproxy_proxy_livez_total', type: 'counter', labels: ['code'] },
  // kpng's own
  { name: 'kpng_model_events_total', type: 'counter', labels: ['kind'] },
  { name: 'kpng_model_revisions_total', type: 'counter', labels: [] },
  { name: 'kpng_model_objects', type: 'gauge', labels: ['kind'] },
  { name: 'kpng_stream_clients', type: 'gauge', labels: ['api'] },
  { name: 'kpng_stream_states_sent_total', type: 'counter', labels: ['api'] },
  { name: 'kpng_stream_refused_total', type: 'counter', labels: ['api', 'reason'] },
  { name: 'kpng_stream_revision', type: 'gauge', labels: [] },
  { name: 'kpng_sync_failures_total', type: 'counter', labels: ['backend'] },
  { name: 'kpng_sync_write_timeouts_total', type: 'counter', labels: ['backend'] },
  { name: 'kpng_sync_drift_repairs_total', type: 'counter', labels: ['backend', 'kind'] },
  { name: 'kpng_node_view_duration_seconds', type: 'histogram', labels: [], buckets: EXP },
  { name: 'kpng_resyncs_total', type: 'counter', labels: ['result'] },
  { name: 'kpng_network_programming_from_event_seconds', type: 'histogram', labels: ['ip_family'], buckets: FINE },
  { name: 'kpng_http_refused_requests_total', type: 'counter', labels: ['server', 'reason'] },
  { name: 'kpng_invalid_objects_total', type: 'counter', labels: ['kind'] },
  { name: 'kpng_stream_client_refused_total', type: 'counter', labels: ['api', 'reason'] },
];

/** Touches every metric through the public helpers, so each one has samples to expose. */
function exercise(m: CoreMetrics): void {
  m.syncQueued('IPv4', 1_000);
  m.syncSucceeded('IPv4', 0.01, true, 2_000);
  m.syncSucceeded('IPv4', 0.01, false, 3_000);
  m.programmingLatency('IPv4', 0.3);
  m.programmingFromEvent('IPv4', 0.03);
  m.noLocalEndpoints('internal', 'IPv4', 1);
  m.syncFailed('nft');
  m.syncWriteTimedOut('nft');
  m.driftRepaired('nft', 'table');
  m.healthzAnswered(200);
  m.livezAnswered(503);
  m.serviceChanges(2, 1);
  m.endpointChanges(3, 2);
  m.modelEvent('Service');
  m.modelRevision();
  m.modelObjects('Service', 5);
  m.nodeViewDuration(0.002);
  m.resynced(false);
  m.kpng.httpRefusedTotal.inc({ server: 'healthz', reason: 'bad-request' });
  m.streamClients('local', 1);
  m.streamStateSent('local');
  m.streamRefused('global', 'peer_streams');
  m.streamRevision(7);
  invalidObjectsTotal.inc({ kind: 'Service' }); // counted by the converters, served by core's registry
  streamClientRefusedTotal.inc({ api: 'local', reason: 'slow' }); // counted by the stream clients, likewise
}

interface Exposed {
  type?: string;
  labelSets: Set<string>;
  le: string[];
}

/** Reads the text exposition: each family's TYPE, the label names of its samples, its `le` bounds. */
function parseExposition(text: string): Map<string, Exposed> {
  const families = new Map<string, Exposed>();
  const family = (name: string) => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { labelSets: new Set(), le: [] }));
    return f;
  };
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) {
      family(type[1]!).type = type[2]!;
      continue;
    }
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? \S+/.exec(line);
    if (!sample) continue;
    const base = sample[1]!.replace(/_(bucket|sum|count)$/, '');
    const f = families.get(base) ?? family(sample[1]!);
    const labels = [...(sample[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)];
    const le = labels.find(([, k]) => k === 'le');
    if (le && le[2] !== '+Inf') f.le.push(le[2]!);
    f.labelSets.add(
      labels
        .map(([, k]) => k)
        .filter((k) => k !== 'le')
        .sort()
        .join(','),
    );
  }
  return families;
}

describe('createCoreMetrics', () => {
  const registry = new Registry();
  const metrics = createCoreMetrics(registry);
  exercise(metrics);

  it.each(EXPECTED)('$name is a $type with labels [$labels]', async ({ name, type, labels, buckets }) => {
    const exposed = parseExposition(await registry.metrics()).get(name);
    expect(exposed?.type).toBe(type);
    expect([...exposed!.labelSets]).toEqual([[...labels].sort().join(',')]);
    if (buckets) {
      const bounds = [...new Set(exposed!.le)].map(Number);
      expect(bounds).toEqual(buckets);
    }
  });

  it("has the doc's bucket counts: 15 EXP bounds, 81 NPL bounds with a leading 0", () => {
    expect(EXP).toHaveLength(15);
    expect(NPL).toHaveLength(81);
    expect(NPL[0]).toBe(0);
  });

  it('registers process metrics unless told not to', async () => {
    expect(registry.getSingleMetric('process_cpu_user_seconds_total')).toBeDefined();
    const bare = new Registry();
    createCoreMetrics(bare, { processMetrics: false });
    expect(bare.getSingleMetric('process_cpu_user_seconds_total')).toBeUndefined();
    const names = (await bare.getMetricsAsJSON()).map((m) => m.name);
    expect(names.sort()).toEqual(EXPECTED.map((e) => e.name).sort());
  });

  it('records what the helpers are told', async () => {
    const r = new Registry();
    const m = createCoreMetrics(r, { processMetrics: false });
    m.syncQueued('IPv6', 5_500);
    m.syncSucceeded('IPv6', 0.003, true, 6_000);
    m.syncSucceeded('IPv6', 0.5, false, 7_250);
    m.serviceChanges(3, 2);
    m.serviceChanges(1, 0);
    m.healthzAnswered(503);
    m.healthzAnswered(503);
    const text = await r.metrics();
    expect(text).toContain('kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds{ip_family="IPv6"} 5.5');
    expect(text).toContain('kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family="IPv6"} 7.25');
    expect(text).toContain('kubeproxy_sync_proxy_rules_duration_seconds_count{ip_family="IPv6"} 2');
    expect(text).toContain('kubeproxy_sync_full_proxy_rules_duration_seconds_count{ip_family="IPv6"} 1');
    expect(text).toContain('kubeproxy_sync_partial_proxy_rules_duration_seconds_sum{ip_family="IPv6"} 0.5');
    expect(text).toContain('kubeproxy_sync_proxy_rules_service_changes_total 4');
    expect(text).toContain('kubeproxy_sync_proxy_rules_service_changes_pending 0');
    expect(text).toContain('kubeproxy_proxy_healthz_total{code="503"} 2');
  });

  it('uses upstream help texts with the ALPHA stability marker', async () => {
    const text = await registry.metrics();
    expect(text).toContain(
      '# HELP kubeproxy_sync_proxy_rules_duration_seconds [ALPHA] SyncProxyRules latency in seconds\n',
    );
    expect(text).toContain(
      '# HELP kubeproxy_network_programming_duration_seconds [ALPHA] In Cluster Network Programming Latency in seconds\n',
    );
  });
});
