import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { bucketBounds } from '../../test/support/metrics.js';
import { FINE_BUCKETS, LATENCY_BUCKETS, NPL_BUCKETS } from './buckets.js';
import { podCreationMetrics, policyMetrics, serviceMetrics } from './client-metrics.js';

const UPSTREAM_BOUNDS = [0.1, 0.5, 1, 3, 5, 10, 30, 60, 300, 600, 1800, 3600];

describe('metric names and buckets', () => {
  it("upstream's buckets, exactly", () => {
    expect(LATENCY_BUCKETS).toEqual(UPSTREAM_BOUNDS);
  });

  it("kube-proxy's NPL buckets: 0, 0.25, 0.5, 1..59, 60..115 by 5, 120..300 by 30 (81 bounds)", () => {
    expect(NPL_BUCKETS).toHaveLength(81);
    expect(NPL_BUCKETS.slice(0, 5)).toEqual([0, 0.25, 0.5, 1, 2]);
    expect(NPL_BUCKETS.slice(61, 63)).toEqual([59, 60]);
    expect(NPL_BUCKETS.slice(-8)).toEqual([115, 120, 150, 180, 210, 240, 270, 300]);
  });

  it('fine buckets: 1, 1.5, 2, 3, 5, 7 per decade from 1 ms to 7000 s, exact, past a 10-minute deadline and 3600 s', () => {
    expect(FINE_BUCKETS).toHaveLength(42);
    expect(FINE_BUCKETS.slice(0, 7)).toEqual([0.001, 0.0015, 0.002, 0.003, 0.005, 0.007, 0.01]);
    expect(FINE_BUCKETS.slice(-7)).toEqual([700, 1000, 1500, 2000, 3000, 5000, 7000]);
    // 1.001 s and 2.9 s are in different buckets (upstream's (1, 3] holds both).
    const bucket = (x: number) => FINE_BUCKETS.findIndex((b) => x <= b);
    expect(bucket(1.001)).not.toBe(bucket(2.9));
    for (let i = 1; i < FINE_BUCKETS.length; i++)
      expect(FINE_BUCKETS[i]! / FINE_BUCKETS[i - 1]!).toBeLessThanOrEqual(5 / 3 + 1e-9);
  });

  it('pod-creation exposes the two upstream histograms, unlabelled, with upstream buckets (upstream mode)', async () => {
    const registry = new Registry();
    const m = podCreationMetrics(registry, 'upstream');
    m.ipAssigned(6.3, 'creationTimestamp');
    m.reachability(0.48, 'watch');
    const text = await registry.metrics();
    for (const name of ['pod_ip_address_assigned_latency_seconds', 'pod_creation_reachability_latency_seconds']) {
      expect(text).toContain(`# TYPE ${name} histogram`);
      expect(bucketBounds(text, name)).toEqual(UPSTREAM_BOUNDS);
      expect(text).toMatch(new RegExp(`^${name}_bucket\\{le="\\+Inf"\\} 1$`, 'm'));
      expect(text).toMatch(new RegExp(`^${name}_count 1$`, 'm'));
    }
  });

  it('in precise mode the upstream-named histograms carry mode and start labels: never mixed with upstream samples', async () => {
    const registry = new Registry();
    const m = podCreationMetrics(registry, 'precise');
    m.reachability(0.48, 'watch');
    const text = await registry.metrics();
    expect(bucketBounds(text, 'pod_creation_reachability_latency_seconds')).toEqual(UPSTREAM_BOUNDS);
    expect(text).toContain('pod_creation_reachability_latency_seconds_count{mode="precise",start="watch"} 1');
    expect(text).not.toMatch(/^pod_creation_reachability_latency_seconds_count \d/m);
  });

  it('policy clients expose creation and deletion histograms with upstream buckets', async () => {
    const registry = new Registry();
    const m = policyMetrics(registry, 'upstream', { measureDeletion: true });
    m.creation(0.7, 'creationTimestamp');
    m.deletion?.(0.2, 'watch');
    const text = await registry.metrics();
    for (const name of [
      'policy_enforcement_latency_policy_creation_seconds',
      'policy_enforcement_latency_policy_deletion_seconds',
    ]) {
      expect(text).toContain(`# TYPE ${name} histogram`);
      expect(bucketBounds(text, name)).toEqual(UPSTREAM_BOUNDS);
      expect(text).toMatch(new RegExp(`^${name}_count 1$`, 'm'));
    }
  });

  it('without revocation measurement nothing about deletion is exposed', async () => {
    const registry = new Registry();
    const m = policyMetrics(registry, 'upstream', { measureDeletion: false });
    expect(m.deletion).toBeUndefined();
    const text = await registry.metrics();
    expect(text).not.toContain('policy_deletion');
    expect(text).toContain('kpng_test_client_complete{measurement="policy_creation"} 0');
  });

  it('service programming latency uses the NPL buckets, labelled by path, family and start source', async () => {
    const registry = new Registry();
    const m = serviceMetrics(registry);
    m.programming.observe({ path: 'ClusterIP', ip_family: 'IPv4', start: 'trigger-time' }, 0.3);
    const text = await registry.metrics();
    expect(bucketBounds(text, 'service_programming_latency_seconds')).toEqual([...NPL_BUCKETS]);
    expect(text).toContain(
      'service_programming_latency_seconds_bucket{le="0",path="ClusterIP",ip_family="IPv4",start="trigger-time"} 0',
    );
    expect(text).toContain(
      'service_programming_latency_seconds_bucket{le="0.5",path="ClusterIP",ip_family="IPv4",start="trigger-time"} 1',
    );
  });

  it("kpng's tracking metrics exist from the start, at zero", async () => {
    const registry = new Registry();
    const m = podCreationMetrics(registry, 'upstream');
    m.tracking.latency.observe({ measurement: 'pod_creation_reachability', mode: 'upstream', start: 'watch' }, 0.2);
    const text = await registry.metrics();
    expect(text).toContain('kpng_test_client_targets_in_flight{measurement="pod_creation_reachability"} 0');
    expect(text).toContain('kpng_test_client_complete{measurement="pod_creation_reachability"} 0');
    expect(text).toContain(
      'kpng_test_client_targets_unreached_total{measurement="pod_creation_reachability",reason="deadline"} 0',
    );
    expect(text).toContain('# TYPE kpng_test_client_probe_attempts_total counter');
    expect(bucketBounds(text, 'kpng_test_client_latency_seconds')).toEqual([...FINE_BUCKETS]);
  });
});
