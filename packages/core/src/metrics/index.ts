/** Core's metrics: kube-proxy-compatible and kpng's own, and the kube-proxy style status server. */
export { CoreMetrics, createCoreMetrics, type CoreMetricsOptions, type TrafficPolicyLabel } from './core-metrics.js';
export type { ProxyMetrics } from './proxy-metrics.js';
export type { KpngMetrics } from './kpng-metrics.js';
export { EXP_BUCKETS, NPL_BUCKETS, exponentialBuckets, linearBuckets, mergeBuckets } from './buckets.js';
export { startMetricsServer, type MetricsServer, type MetricsServerOptions } from './server.js';
