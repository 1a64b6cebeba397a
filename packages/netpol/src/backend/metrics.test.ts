import { exposedMetrics } from '@kpng/kit/testing';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { policySyncLatency } from './netpol-backend.js';

// Dashboards and the latency client's comparisons read this histogram: pinned here.
describe('the NetworkPolicy enforcer metrics', () => {
  it('expose the sync latency histogram: name, help, buckets', async () => {
    const registry = new Registry();
    policySyncLatency(registry).observe(0.2);
    expect(await exposedMetrics(registry)).toEqual([
      'histogram kpng_netpol_sync_latency_seconds{} Seconds from the API event of a NetworkPolicy, Pod or Namespace change (as the core applied it) to the nftables transaction enforcing it. le=0.005,0.01,0.025,0.05,0.1,0.25,0.5,1,2.5,5,10,30,+Inf',
    ]);
  });

  it('is declared once per registry: a second enforcer on it shares it', async () => {
    const registry = new Registry();
    expect(policySyncLatency(registry)).toBe(policySyncLatency(registry));
  });
});
