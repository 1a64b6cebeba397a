/**
 * The connection-rate figures: connections per second of each sample, and the loaded cluster's
 * rate over the small one's, per alternating pair (so load drifting on the machine hits both
 * sides of a ratio alike) and as the ratio of the medians.
 */
import { summarize, type Summary } from '../runner/stats.js';

export interface RateSample {
  /** Connections answered by the expected server. */
  readonly connections: number;
  readonly ms: number;
}

export function perSecond(sample: RateSample): number {
  if (!(sample.ms > 0)) throw new RangeError(`a rate sample needs a positive duration, got ${sample.ms} ms`);
  return (sample.connections * 1000) / sample.ms;
}

export interface RateFigures {
  readonly loaded: Summary;
  readonly small: Summary;
  /** loaded / small, each pair measured back to back. */
  readonly pairRatios: Summary;
  /** median(loaded) / median(small). */
  readonly ratioOfMedians: number;
}

export function rateFigures(loaded: readonly RateSample[], small: readonly RateSample[]): RateFigures {
  if (loaded.length !== small.length) throw new RangeError(`unpaired samples: ${loaded.length} vs ${small.length}`);
  const a = loaded.map(perSecond);
  const b = small.map(perSecond);
  const l = summarize(a);
  const s = summarize(b);
  return {
    loaded: l,
    small: s,
    pairRatios: summarize(a.map((rate, i) => rate / (b[i] as number))),
    ratioOfMedians: l.p50 / s.p50,
  };
}

/**
 * Which cluster a round measures first: alternating, so whatever follows a full sync (the bench
 * process's garbage, the kernel freeing the old rules) or drifts within a round weighs on both.
 */
export function roundOrder(round: number): readonly ['loaded', 'small'] | readonly ['small', 'loaded'] {
  return round % 2 === 0 ? (['loaded', 'small'] as const) : (['small', 'loaded'] as const);
}
