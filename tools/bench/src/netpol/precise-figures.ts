/**
 * The precise-mode figures of `netpol/precise.ts`: each instant the client reported against the
 * window its truth (the enforcer's commit) lies in.
 */

/** The client's probe interval: a revocation is reported at the start of the first failing attempt. */
export const PRECISE_INTERVAL_MS = 5;

/** One change handed to the enforcer: the commit lies between `sentAt` and `confirmedAt` (epoch ms). */
export interface Window {
  readonly sentAt: number;
  readonly confirmedAt: number;
}

/** One reported instant against the window of the change it reports. */
export interface PreciseSample {
  readonly kind: 'creation' | 'revocation';
  readonly reportedAt: number;
  readonly window: Window;
}

/**
 * How far a reported instant lies outside the window its truth lies in (0 inside): a revocation is
 * reported at the start of the first failing attempt, so up to one probe interval before the commit.
 */
export function errorOutsideWindow(sample: PreciseSample): number {
  const first = sample.window.sentAt - (sample.kind === 'revocation' ? PRECISE_INTERVAL_MS : 0);
  if (sample.reportedAt < first) return first - sample.reportedAt;
  return Math.max(0, sample.reportedAt - sample.window.confirmedAt);
}
