/**
 * The HNS backend's own metrics. Core's SyncLoop registers kube-proxy's sync metrics (durations,
 * network programming latency, failures); these count what reached HNS.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { metricsOn } from '@kpng/kit';

export interface WinKernelMetrics {
  hnsCall(operation: string, ok: boolean): void;
  /** A failed sync was undone (`undone`) or could not be (`stale`). */
  rollback(result: 'undone' | 'stale'): void;
  loadBalancers(count: number): void;
}

export const NO_METRICS: WinKernelMetrics = { hnsCall() {}, rollback() {}, loadBalancers() {} };

export function createWinKernelMetrics(registry: Registry): WinKernelMetrics {
  const metric = metricsOn(registry);
  const calls = metric(Counter, {
    name: 'kpng_win_kernel_hns_operations_total',
    help: 'HNS load balancer and endpoint operations, by operation and result',
    labelNames: ['operation', 'result'],
  });
  const rollbacks = metric(Counter, {
    name: 'kpng_win_kernel_rollbacks_total',
    help: 'Failed syncs whose applied operations were undone (result=undone) or could not be (result=stale)',
    labelNames: ['result'],
  });
  const lbs = metric(Gauge, {
    name: 'kpng_win_kernel_load_balancers',
    help: 'HNS load balancers programmed by this node after the last successful sync',
  });
  return {
    hnsCall: (operation, ok) => calls.inc({ operation, result: ok ? 'success' : 'error' }),
    rollback: (result) => rollbacks.inc({ result }),
    loadBalancers: (count) => lbs.set(count),
  };
}
