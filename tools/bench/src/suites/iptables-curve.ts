/**
 * The iptables-nft growth curve: a kube-proxy-shaped ruleset's restore time grows much faster than
 * the number of Services, so a 10k-Service restore is not run (it did not finish in 45 minutes
 * here). Sizes are measured smallest first while the fitted curve predicts each next one within the
 * time budget; the figure at the scenario's size is extrapolated from the fitted power law (and
 * reported as such).
 */

/** `t = a * n^b`, fitted by least squares on log t against log n. */
export interface PowerLaw {
  readonly a: number;
  readonly b: number;
}

export function fitPowerLaw(points: readonly { readonly n: number; readonly ms: number }[]): PowerLaw {
  if (points.length < 2) throw new RangeError('a power law needs at least two points');
  const xs = points.map((p) => Math.log(p.n));
  const ys = points.map((p) => Math.log(p.ms));
  const mx = xs.reduce((s, x) => s + x, 0) / xs.length;
  const my = ys.reduce((s, y) => s + y, 0) / ys.length;
  let sxy = 0;
  let sxx = 0;
  xs.forEach((x, i) => {
    sxy += (x - mx) * ((ys[i] as number) - my);
    sxx += (x - mx) ** 2;
  });
  if (sxx === 0) throw new RangeError('a power law needs two different sizes');
  const b = sxy / sxx;
  return { a: Math.exp(my - b * mx), b };
}

export function predict(law: PowerLaw, n: number): number {
  return law.a * n ** law.b;
}

/** `n` where the law reaches `ms`. */
export function sizeAt(law: PowerLaw, ms: number): number {
  return (ms / law.a) ** (1 / law.b);
}

/**
 * The sizes to measure, in order, up to `max`: `sizes` as given, each run only while the previous
 * points predict it within `budgetMs` (the caller passes what it measured so far).
 */
export function nextSize(
  sizes: readonly number[],
  measured: readonly { readonly n: number; readonly ms: number }[],
  budgetMs: number,
): number | undefined {
  const next = sizes.find((n) => !measured.some((p) => p.n === n));
  if (next === undefined) return undefined;
  if (measured.length < 2) {
    const last = measured.at(-1);
    // One point: assume at worst quadratic growth until a second point gives the exponent.
    return last === undefined || last.ms * (next / last.n) ** 2 <= budgetMs ? next : undefined;
  }
  return predict(fitPowerLaw(measured), next) <= budgetMs ? next : undefined;
}
