/**
 * kube-proxy's two histogram layouts (observability doc section 2). Dashboards and clusterloader2's
 * recording rules read the `le` values, so these must match upstream bound for bound.
 */

/** Prometheus' `LinearBuckets(start, width, count)`. */
export function linearBuckets(start: number, width: number, count: number): number[] {
  // Multiply rather than accumulate, so 0.25-steps stay exact.
  return Array.from({ length: count }, (_, i) => start + i * width);
}

/** Prometheus' `ExponentialBuckets(start, factor, count)`. */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start * factor ** i);
}

/**
 * component-base's `MergeBuckets`: concatenation with a leading 0 bound. The leading 0 is kept
 * deliberately: upstream exposes `le="0"`, and quantile queries see it.
 */
export function mergeBuckets(...layouts: readonly number[][]): number[] {
  return [0, ...layouts.flat()];
}

/** EXP: sync durations. 0.001 s doubling to 16.384 s (15 bounds). */
export const EXP_BUCKETS: readonly number[] = Object.freeze(exponentialBuckets(0.001, 2, 15));

/** NPL: network programming latency. 0, 0.25, 0.5, 1..59, 60..115 by 5, 120..300 by 30 (81 bounds). */
export const NPL_BUCKETS: readonly number[] = Object.freeze(
  mergeBuckets(linearBuckets(0.25, 0.25, 2), linearBuckets(1, 1, 59), linearBuckets(60, 5, 12), linearBuckets(120, 30, 7)),
);
