import type { ProbeSettings } from '../config/common.js';
import type { MeasurementName, TrackingMetrics } from '../metrics/tracking.js';
import type { Clock } from '../util/clock.js';
import type { Dialer } from './dialer.js';
import type { SuccessMatcher } from './matcher.js';
import { probeUntil, type ProbeGoal, type ProbeOutcome } from './probe-loop.js';

export interface ProbeJob {
  /** Identifies the job for `stop()`. */
  readonly key: string;
  readonly measurement: MeasurementName;
  readonly host: string;
  readonly port: number;
  readonly goal: ProbeGoal;
  readonly matcher: SuccessMatcher;
  /** Epoch ms; undefined: no deadline. */
  readonly deadline: number | undefined;
  readonly connectionsPerAttempt?: number;
}

/** A probe's outcome; a stopped one says why (the reason given to `stop`). */
export type JobOutcome =
  | Exclude<ProbeOutcome, { readonly status: 'stopped' }>
  | { readonly status: 'stopped'; readonly attempts: number; readonly reason: string };

/**
 * Runs probe loops with the client's settings, counts every attempt in
 * `kpng_test_client_probe_attempts_total`, and lets the client stop one (its target was deleted)
 * or all of them (shutdown).
 */
export class Prober {
  readonly #running = new Map<string, { readonly stop: AbortController; reason: string }>();

  constructor(
    private readonly deps: { readonly clock: Clock; readonly dialer: Dialer; readonly tracking: TrackingMetrics },
    private readonly settings: ProbeSettings,
  ) {}

  /** The deadline for a target whose clock starts at `from` (epoch ms). */
  deadlineFrom(from: number): number | undefined {
    return this.settings.targetTimeoutMs > 0 ? from + this.settings.targetTimeoutMs : undefined;
  }

  isRunning(key: string): boolean {
    return this.#running.has(key);
  }

  get running(): number {
    return this.#running.size;
  }

  async run(job: ProbeJob): Promise<JobOutcome> {
    if (this.#running.has(job.key)) throw new Error(`probe ${job.key} is already running`);
    const entry = { stop: new AbortController(), reason: 'stopped' };
    this.#running.set(job.key, entry);
    try {
      const outcome = await probeUntil({
        dialer: this.deps.dialer,
        clock: this.deps.clock,
        host: job.host,
        port: job.port,
        goal: job.goal,
        matcher: job.matcher,
        cadence: this.settings.cadence,
        intervalMs: this.settings.intervalMs,
        attemptTimeoutMs: this.settings.attemptTimeoutMs,
        deadline: job.deadline,
        ...(job.connectionsPerAttempt !== undefined ? { connectionsPerAttempt: job.connectionsPerAttempt } : {}),
        signal: entry.stop.signal,
        onAttempt: (attempt) =>
          this.deps.tracking.attempts.inc({ measurement: job.measurement, result: attempt.result }),
        onSkip: () => this.deps.tracking.ticksSkipped.inc({ measurement: job.measurement }),
      });
      return outcome.status === 'stopped' ? { ...outcome, reason: entry.reason } : outcome;
    } finally {
      this.#running.delete(job.key);
    }
  }

  stop(key: string, reason: string): void {
    const entry = this.#running.get(key);
    if (!entry) return;
    entry.reason = reason;
    entry.stop.abort();
  }

  stopAll(reason: string): void {
    for (const key of [...this.#running.keys()]) this.stop(key, reason);
  }
}
