import type { Clock } from '../../util/clock.js';

export interface BackoffOptions {
  /** First delay; client-go's reflector uses 800 ms. */
  readonly initialMs?: number;
  /** Cap; client-go uses 30 s. */
  readonly maxMs?: number;
  /** A failure after this long without one starts over from `initialMs`; client-go uses 2 min. */
  readonly resetAfterMs?: number;
  /** Up to this fraction is added at random so that many nodes do not retry in step; client-go uses 1.0. */
  readonly jitter?: number;
}

/**
 * The delay before restarting a failed informer: doubling from `initialMs` up to `maxMs`, with
 * jitter, forgiven after a quiet period (client-go's reflector backoff manager).
 */
export class RestartBackoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly resetAfterMs: number;
  private readonly jitter: number;
  private failures = 0;
  private lastFailureAt: number | undefined;

  constructor(
    private readonly clock: Clock,
    options: BackoffOptions = {},
    private readonly random: () => number = Math.random,
  ) {
    this.initialMs = options.initialMs ?? 800;
    this.maxMs = options.maxMs ?? 30_000;
    this.resetAfterMs = options.resetAfterMs ?? 120_000;
    this.jitter = options.jitter ?? 1;
  }

  /** Records a failure and returns how long to wait before the next attempt. */
  nextDelayMs(): number {
    const now = this.clock.monotonic();
    if (this.lastFailureAt !== undefined && now - this.lastFailureAt > this.resetAfterMs) this.failures = 0;
    this.lastFailureAt = now;
    const base = Math.min(this.maxMs, this.initialMs * 2 ** this.failures);
    this.failures += 1;
    return Math.min(this.maxMs, base * (1 + this.jitter * this.random()));
  }
}
