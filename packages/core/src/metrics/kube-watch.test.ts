import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { KUBE_WATCH_OUTAGE_BUCKETS, registerKubeWatchMetrics } from './kube-watch.js';

describe('registerKubeWatchMetrics', () => {
  it('counts reconnects and observes outages by kind', async () => {
    const registry = new Registry();
    const metrics = registerKubeWatchMetrics(registry);
    metrics.reconnected('Service', 0.003);
    metrics.reconnected('Service', 21.5);
    metrics.reconnected('EndpointSlice', 21.4);
    const text = await registry.metrics();
    expect(text).toContain('kpng_kube_watch_reconnects_total{kind="Service"} 2');
    expect(text).toContain('kpng_kube_watch_reconnects_total{kind="EndpointSlice"} 1');
    expect(text).toContain('kpng_kube_watch_outage_seconds_bucket{le="0.01",kind="Service"} 1');
    expect(text).toContain('kpng_kube_watch_outage_seconds_bucket{le="30",kind="Service"} 2');
    expect(text).toContain('kpng_kube_watch_outage_seconds_sum{kind="Service"} 21.503');
    const bounds = [...text.matchAll(/^kpng_kube_watch_outage_seconds_bucket\{le="([^"]+)",kind="Service"/gm)].map(
      (m) => m[1],
    );
    expect(bounds).toEqual([...KUBE_WATCH_OUTAGE_BUCKETS.map(String), '+Inf']);
  });

  it('reads the current outage at each scrape, until the kind stops reporting', async () => {
    const registry = new Registry();
    const metrics = registerKubeWatchMetrics(registry);
    let down = 0;
    const stop = metrics.reportDownSeconds('Node', () => down);
    expect(await registry.metrics()).toContain('kpng_kube_watch_down_seconds{kind="Node"} 0');
    down = 12.5;
    expect(await registry.metrics()).toContain('kpng_kube_watch_down_seconds{kind="Node"} 12.5');
    stop();
    expect(await registry.metrics()).not.toContain('kpng_kube_watch_down_seconds{kind="Node"}');
  });

  it('can be registered twice on one registry', async () => {
    const registry = new Registry();
    registerKubeWatchMetrics(registry).reportDownSeconds('Service', () => 1);
    const again = registerKubeWatchMetrics(registry);
    again.reconnected('Service', 1);
    again.reportDownSeconds('EndpointSlice', () => 2);
    const text = await registry.metrics();
    expect(text).toContain('kpng_kube_watch_reconnects_total{kind="Service"} 1');
    expect(text).toContain('kpng_kube_watch_down_seconds{kind="Service"} 1');
    expect(text).toContain('kpng_kube_watch_down_seconds{kind="EndpointSlice"} 2');
  });
});
