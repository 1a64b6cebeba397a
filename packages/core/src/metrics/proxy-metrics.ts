import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { EXP_BUCKETS, NPL_BUCKETS } from './buckets.js';

/**
 * kube-proxy's own metrics (observability doc 3.1 and 3.2), under upstream's exact names, types,
 * labels and buckets, so existing dashboards, alerts and clusterloader2 keep working. Help texts
 * are upstream's, with component-base's stability prefix.
 */
export interface ProxyMetrics {
  readonly syncProxyRulesDuration: Histogram<'ip_family'>;
  readonly syncFullProxyRulesDuration: Histogram<'ip_family'>;
  readonly syncPartialProxyRulesDuration: Histogram<'ip_family'>;
  readonly syncProxyRulesLastTimestamp: Gauge<'ip_family'>;
  readonly syncProxyRulesLastQueuedTimestamp: Gauge<'ip_family'>;
  readonly networkProgrammingDuration: Histogram<'ip_family'>;
  readonly endpointChangesPending: Gauge;
  readonly endpointChangesTotal: Counter;
  readonly serviceChangesPending: Gauge;
  readonly serviceChangesTotal: Counter;
  readonly noLocalEndpointsTotal: Gauge<'traffic_policy' | 'ip_family'>;
  readonly proxyHealthzTotal: Counter<'code'>;
  readonly proxyLivezTotal: Counter<'code'>;
}

const ALPHA = '[ALPHA] ';

export function createProxyMetrics(registry: Registry): ProxyMetrics {
  const registers = [registry];
  const durationHistogram = (name: string, help: string) =>
    new Histogram({
      name,
      help: ALPHA + help,
      labelNames: ['ip_family'] as const,
      buckets: [...EXP_BUCKETS],
      registers,
    });
  return {
    syncProxyRulesDuration: durationHistogram(
      'kubeproxy_sync_proxy_rules_duration_seconds',
      'SyncProxyRules latency in seconds',
    ),
    syncFullProxyRulesDuration: durationHistogram(
      'kubeproxy_sync_full_proxy_rules_duration_seconds',
      'SyncProxyRules latency in seconds for full resyncs',
    ),
    syncPartialProxyRulesDuration: durationHistogram(
      'kubeproxy_sync_partial_proxy_rules_duration_seconds',
      'SyncProxyRules latency in seconds for partial resyncs',
    ),
    syncProxyRulesLastTimestamp: new Gauge({
      name: 'kubeproxy_sync_proxy_rules_last_timestamp_seconds',
      help: ALPHA + 'The last time proxy rules were successfully synced',
      labelNames: ['ip_family'] as const,
      registers,
    }),
    syncProxyRulesLastQueuedTimestamp: new Gauge({
      name: 'kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds',
      help: ALPHA + 'The last time a sync of proxy rules was queued',
      labelNames: ['ip_family'] as const,
      registers,
    }),
    networkProgrammingDuration: new Histogram({
      name: 'kubeproxy_network_programming_duration_seconds',
      help: ALPHA + 'In Cluster Network Programming Latency in seconds',
      labelNames: ['ip_family'] as const,
      buckets: [...NPL_BUCKETS],
      registers,
    }),
    endpointChangesPending: new Gauge({
      name: 'kubeproxy_sync_proxy_rules_endpoint_changes_pending',
      help: ALPHA + 'Pending proxy rules Endpoint changes',
      registers,
    }),
    endpointChangesTotal: new Counter({
      name: 'kubeproxy_sync_proxy_rules_endpoint_changes_total',
      help: ALPHA + 'Cumulative proxy rules Endpoint changes',
      registers,
    }),
    serviceChangesPending: new Gauge({
      name: 'kubeproxy_sync_proxy_rules_service_changes_pending',
      help: ALPHA + 'Pending proxy rules Service changes',
      registers,
    }),
    serviceChangesTotal: new Counter({
      name: 'kubeproxy_sync_proxy_rules_service_changes_total',
      help: ALPHA + 'Cumulative proxy rules Service changes',
      registers,
    }),
    noLocalEndpointsTotal: new Gauge({
      name: 'kubeproxy_sync_proxy_rules_no_local_endpoints_total',
      help: ALPHA + 'Number of services with a Local traffic policy and no endpoints',
      labelNames: ['traffic_policy', 'ip_family'] as const,
      registers,
    }),
    proxyHealthzTotal: new Counter({
      name: 'kubeproxy_proxy_healthz_total',
      help: ALPHA + 'Cumulative proxy healthz HTTP status',
      labelNames: ['code'] as const,
      registers,
    }),
    proxyLivezTotal: new Counter({
      name: 'kubeproxy_proxy_livez_total',
      help: ALPHA + 'Cumulative proxy livez HTTP status',
      labelNames: ['code'] as const,
      registers,
    }),
  };
}
