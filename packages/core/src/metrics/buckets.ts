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
  mergeBuckets(
    linearBuckets(0.25, 0.25, 2),
    linearBuckets(1, 1, 59),
    linearBuckets(60, 5, 12),
    linearBuckets(120, 30, 7),
  ),
);

/**
 * FINE: kpng's own latency histograms (not kube-proxy's). 1, 1.5, 2, 3, 5, 7 per decade from 1 ms
 * to 7000 s (42 bounds): neighbouring bounds at most 5:3 apart, so 1.001 s and 2.9 s never share
 * a bucket (NPL's 1 s steps and upstream's (1, 3] do), and a quantile is off by at most half a step.
 * Written as m / 10^k so the `le` values print exactly (0.0015, not 0.0015000000000000002).
 */
export const FINE_BUCKETS: readonly number[] = Object.freeze(
  [-3, -2, -1, 0, 1, 2, 3].flatMap((k) => [1, 1.5, 2, 3, 5, 7].map((m) => (k < 0 ? m / 10 ** -k : m * 10 ** k))),
);
