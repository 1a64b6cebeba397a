/** Upstream's `latencyBuckets` (perf-tests `pkg/metrics`), seconds; `+Inf` is implicit. */
export const LATENCY_BUCKETS: readonly number[] = [0.1, 0.5, 1, 3, 5, 10, 30, 60, 300, 600, 1800, 3600];

function linear(start: number, width: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start + i * width);
}

/**
 * kube-proxy's `network_programming_duration_seconds` buckets (NPL): MergeBuckets of
 * LinearBuckets(0.25, 0.25, 2), (1, 1, 59), (60, 5, 12), (120, 30, 7), with the leading 0 bound
 * MergeBuckets adds: 81 bounds. `service_programming_latency_seconds` uses them so the two can be
 * compared bucket for bucket.
 */
export const NPL_BUCKETS: readonly number[] = [
  0,
  ...linear(0.25, 0.25, 2),
  ...linear(1, 1, 59),
  ...linear(60, 5, 12),
  ...linear(120, 30, 7),
];

/**
 * kpng's fine-grained twin of every measurement: 1, 1.5, 2, 3, 5, 7 per decade from 1 ms to 7000 s
 * (42 bounds, as core's kpng_* latency histograms): neighbours at most 5:3 apart, covering a
 * 10-minute per-target deadline and upstream's 3600 s. m / 10^k keeps the `le` values exact.
 */
export const FINE_BUCKETS: readonly number[] = [-3, -2, -1, 0, 1, 2, 3].flatMap((k) =>
  [1, 1.5, 2, 3, 5, 7].map((m) => (k < 0 ? m / 10 ** -k : m * 10 ** k)),
);
