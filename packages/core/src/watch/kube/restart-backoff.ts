import type { Clock } from '../../util/clock.js';

export interface BackoffOptions {
  /** First delay; client-go's reflector uses 800 ms. */
  readonly initialMs?: number;
  /** Cap of the doubling delay, before jitter; client-go uses 30 s. */
  readonly maxMs?: number;
  /** A failure after this long without one starts over from `initialMs`; client-go uses 2 min. */
  readonly resetAfterMs?: number;
  /**
   * Up to this fraction of the delay is added at random, so that many nodes do not retry in step;
   * client-go uses 1.0. Added after the cap, as client-go's `Backoff.Step` does: at the cap the
   * delays still spread (over [30 s, 60 s) with the defaults) instead of landing all at once.
   */
  readonly jitter?: number;
}

/** client-go's reflector backoff (`NewExponentialBackoffManager(800ms, 30s, 2min, 2.0, 1.0)`). */
export const REFLECTOR_BACKOFF: Required<BackoffOptions> = Object.freeze({
  initialMs: 800,
  maxMs: 30_000,
  resetAfterMs: 120_000,
  jitter: 1,
});

/**
 * A doubling delay with jitter, forgiven after a quiet period: client-go's exponential backoff
 * manager, step for step (the duration doubles up to the cap, jitter is added to each step, and a
 * step asked for more than `resetAfterMs` after the previous one starts over).
 */
export class RestartBackoff {
  private readonly options: Required<BackoffOptions>;
  private failures = 0;
  private lastStepAt: number | undefined;

  constructor(
    private readonly clock: Clock,
    options: BackoffOptions = {},
    private readonly random: () => number = Math.random,
    defaults: Required<BackoffOptions> = REFLECTOR_BACKOFF,
  ) {
    this.options = { ...defaults, ...definedOnly(options) };
  }

  /** Records a failure and returns how long to wait before the next attempt. */
  nextDelayMs(): number {
    const { initialMs, maxMs, resetAfterMs, jitter } = this.options;
    const now = this.clock.monotonic();
    if (this.lastStepAt !== undefined && now - this.lastStepAt > resetAfterMs) this.failures = 0;
    this.lastStepAt = now;
    // Doubling stops at the cap; the exponent is bounded so that it never overflows to Infinity.
    const base = Math.min(maxMs, initialMs * 2 ** Math.min(this.failures, 52));
    this.failures += 1;
    return base * (1 + jitter * this.random());
  }

  /** Starts over from `initialMs` at the next failure (the peer proved healthy). */
  reset(): void {
    this.failures = 0;
    this.lastStepAt = undefined;
  }
}

function definedOnly(options: BackoffOptions): BackoffOptions {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
}
