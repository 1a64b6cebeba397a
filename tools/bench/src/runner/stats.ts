/** Order statistics of benchmark samples. */

export interface Summary {
  readonly n: number;
  readonly min: number;
  readonly max: number;
  readonly mean: number;
  readonly p50: number;
  readonly p99: number;
}

/**
 * The `p`-th percentile (0..100) of ascending `sorted` samples, interpolating linearly between the
 * two closest ranks (numpy's default, Excel's PERCENTILE.INC): p50 of an even count is the mean of
 * the middle two, as "median" usually means.
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new RangeError('percentile of no samples');
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within [0, 100], got ${p}`);
  const rank = ((sorted.length - 1) * p) / 100;
  const lower = Math.floor(rank);
  const low = sorted[lower] as number;
  const high = sorted[Math.min(lower + 1, sorted.length - 1)] as number;
  return low + (high - low) * (rank - lower);
}

export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) throw new RangeError('cannot summarize no samples');
  if (samples.some((s) => !Number.isFinite(s))) throw new RangeError('samples must be finite numbers');
  const sorted = samples.slice().sort((a, b) => a - b);
  return {
    n: sorted.length,
    min: sorted[0] as number,
    max: sorted[sorted.length - 1] as number,
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
  };
}
