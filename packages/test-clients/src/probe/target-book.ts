import type { Mode } from '../config/common.js';
import type { MeasurementName, TrackingMetrics } from '../metrics/tracking.js';

export type ClaimResult = 'claimed' | 'duplicate' | 'full' | 'closed';

/** Why a measurement never completed. */
export type UnreachedReason = 'deadline' | 'deleted' | 'removed' | 'shutdown' | (string & {});

export interface TargetBookOptions {
  readonly measurement: MeasurementName;
  readonly tracking: TrackingMetrics;
  /** Records one sample (seconds, and what it was measured from) in the upstream histogram. */
  readonly observe: Observe;
  /** At most this many targets are measured; default unlimited. */
  readonly maxTargets?: number;
  /** `upstream` records negative latencies as they are (upstream does); `precise` (default) records 0. */
  readonly mode?: Mode;
  /** The `start` label of samples whose `reached` names none (default `watch`). */
  readonly start?: string;
}

export type Observe = (seconds: number, start: string) => void;

export interface Recorded {
  /** What was recorded: the latency, or (precise mode) 0 when it came out negative. */
  readonly seconds: number;
  readonly negative: boolean;
}

/**
 * First-success bookkeeping for one measurement: each target is measured once (a second claim is
 * a duplicate), at most `maxTargets` of them (the first `maxTargets` claims win, and the next one
 * is counted as skipped rather than silently dropped), every claimed target ends either reached
 * (one histogram sample) or unreached (a counter, by reason), and the measurement is complete
 * when no more claims are possible and none is open.
 */
export class TargetBook {
  readonly #open = new Map<string, Observe>();
  readonly #settled = new Set<string>();
  readonly #options: TargetBookOptions;
  readonly #labels: { readonly measurement: MeasurementName };
  #closed = false;
  #resolveDone!: () => void;
  /** Resolves once the measurement is complete. */
  readonly done: Promise<void> = new Promise((resolve) => (this.#resolveDone = resolve));

  constructor(options: TargetBookOptions) {
    this.#options = options;
    this.#labels = { measurement: options.measurement };
  }

  get claimed(): number {
    return this.#open.size + this.#settled.size;
  }
  get open(): number {
    return this.#open.size;
  }
  get full(): boolean {
    return this.claimed >= (this.#options.maxTargets ?? Infinity);
  }
  get complete(): boolean {
    return (this.#closed || this.full) && this.#open.size === 0;
  }
  isOpen(key: string): boolean {
    return this.#open.has(key);
  }
  /** Claimed at some point (open or settled). */
  has(key: string): boolean {
    return this.#open.has(key) || this.#settled.has(key);
  }

  /** Starts measuring `key`; `observe` overrides where its sample goes (e.g. a labelled child). */
  claim(key: string, observe?: Observe): ClaimResult {
    if (this.has(key)) return 'duplicate';
    if (this.#closed) return 'closed';
    if (this.full) {
      this.skip('beyond-max-targets');
      return 'full';
    }
    this.#open.set(key, observe ?? this.#options.observe);
    this.#options.tracking.inFlight.inc(this.#labels);
    return 'claimed';
  }

  /**
   * The target answered `latencyMs` after its `start`. Negative latencies (clock skew) are counted,
   * and recorded as 0 in precise mode, as they are in upstream mode.
   */
  reached(key: string, latencyMs: number, start: string = this.#options.start ?? 'watch'): Recorded {
    const observe = this.take(key);
    const negative = latencyMs < 0;
    const seconds = negative && this.#options.mode !== 'upstream' ? 0 : latencyMs / 1_000;
    if (negative) this.#options.tracking.negative.inc(this.#labels);
    observe(seconds, start);
    this.#options.tracking.latency.observe({ ...this.#labels, mode: this.#options.mode ?? 'precise', start }, seconds);
    this.checkDone();
    return { seconds, negative };
  }

  unreached(key: string, reason: UnreachedReason): void {
    this.take(key);
    this.#options.tracking.unreached.inc({ ...this.#labels, reason });
    this.checkDone();
  }

  /** Counts a target that will not be measured. */
  skip(reason: string): void {
    this.#options.tracking.skipped.inc({ ...this.#labels, reason });
  }

  /** No more claims: the measurement completes once the open ones settle. */
  close(): void {
    this.#closed = true;
    this.checkDone();
  }

  /** Shutdown: every open target counts as unreached with `reason`. */
  abandonAll(reason: UnreachedReason): void {
    for (const key of [...this.#open.keys()]) this.unreached(key, reason);
    this.close();
  }

  private take(key: string): Observe {
    const observe = this.#open.get(key);
    if (observe === undefined) throw new Error(`target ${key} is not being measured`);
    this.#open.delete(key);
    this.#settled.add(key);
    this.#options.tracking.inFlight.dec(this.#labels);
    return observe;
  }

  private checkDone(): void {
    if (!this.complete) return;
    this.#options.tracking.complete.set(this.#labels, 1);
    this.#resolveDone();
  }
}
