import { exposedMetrics } from '@kpng/kit/testing';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createWinKernelMetrics } from './metrics.js';

// Dashboards and alerts read these names, types, labels and help texts: pinned here.
describe('the HNS backend metrics', () => {
  it('expose their names, types, labels and help', async () => {
    const registry = new Registry();
    const metrics = createWinKernelMetrics(registry);
    metrics.hnsCall('create-load-balancer', true);
    metrics.rollback('undone');
    metrics.loadBalancers(4);
    expect(await exposedMetrics(registry)).toEqual([
      'counter kpng_win_kernel_hns_operations_total{operation,result} HNS load balancer and endpoint operations, by operation and result',
      'gauge kpng_win_kernel_load_balancers{} HNS load balancers programmed by this node after the last successful sync',
      'counter kpng_win_kernel_rollbacks_total{result} Failed syncs whose applied operations were undone (result=undone) or could not be (result=stale)',
    ]);
  });

  it('are declared once per registry: a second backend on it shares them', async () => {
    const registry = new Registry();
    createWinKernelMetrics(registry).rollback('stale');
    createWinKernelMetrics(registry).rollback('stale');
    const json = await registry.getMetricsAsJSON();
    expect(json.find((m) => m.name === 'kpng_win_kernel_rollbacks_total')?.values.map((v) => v.value)).toEqual([2]);
  });
});
