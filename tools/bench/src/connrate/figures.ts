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
  /** The client's CPU time over the sample (user + system). */
  readonly cpuMs?: number;
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
  /**
   * The same per second of the client's CPU (when every sample has `cpuMs`): scheduling delay on a
   * busy machine moves wall-clock rates a lot and this little.
   */
  readonly perCpu?: { readonly loaded: Summary; readonly small: Summary; readonly pairRatios: Summary };
}

export function rateFigures(loaded: readonly RateSample[], small: readonly RateSample[]): RateFigures {
  if (loaded.length !== small.length) throw new RangeError(`unpaired samples: ${loaded.length} vs ${small.length}`);
  const a = loaded.map(perSecond);
  const b = small.map(perSecond);
  const l = summarize(a);
  const s = summarize(b);
  const cpu = (x: readonly RateSample[]) =>
    x.every((v) => v.cpuMs !== undefined)
      ? x.map((v) => perSecond({ connections: v.connections, ms: v.cpuMs! }))
      : undefined;
  const [ca, cb] = [cpu(loaded), cpu(small)];
  return {
    loaded: l,
    small: s,
    pairRatios: pairRatios(a, b),
    ratioOfMedians: l.p50 / s.p50,
    ...(ca && cb ? { perCpu: { loaded: summarize(ca), small: summarize(cb), pairRatios: pairRatios(ca, cb) } } : {}),
  };
}

function pairRatios(a: readonly number[], b: readonly number[]): Summary {
  return summarize(a.map((rate, i) => rate / (b[i] as number)));
}

/**
 * Which cluster a round measures first: alternating, so whatever follows a full sync (the bench
 * process's garbage, the kernel freeing the old rules) or drifts within a round weighs on both.
 */
export function roundOrder(round: number): readonly ['loaded', 'small'] | readonly ['small', 'loaded'] {
  return round % 2 === 0 ? (['loaded', 'small'] as const) : (['small', 'loaded'] as const);
}
