import { monitorEventLoopDelay, PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';

/** What a `TurnProbe` saw between `start()` and `stop()`. */
export interface TurnProbeFigures {
  /** The longest gap between two ticks (wall ms): an upper bound of the longest turn. */
  readonly maxWallMs: number;
  /** The most CPU time (this process, every thread) used between two ticks, ms: the longest turn's work. */
  readonly maxCpuMs: number;
  /** Gaps over `overMs` of wall time, and gaps that used over `overMs` of CPU time. */
  readonly overWall: number;
  readonly overCpu: number;
  /** `monitorEventLoopDelay` over the same window (1 ms resolution): its maximum and p99, ms. */
  readonly delayMaxMs: number;
  readonly delayP99Ms: number;
  /** The longest GC pause in the window (V8's `gc` performance entries), ms: tells a GC stall from a long turn. */
  readonly gcPauseMaxMs: number;
}

/**
 * Measures every event-loop turn of this process, whoever runs it (gRPC, a decode, a node view):
 * a timer ticks every `intervalMs` (default 1) and reads the wall clock and this process's CPU time
 * at each tick. A tick late by more than the interval is held by what ran between it and the last
 * tick, so the CPU used between them is at least the longest turn's work there (a conservative
 * figure: it may also hold a few short turns, and other threads' time, GC helpers included). Beside
 * it, Node's `monitorEventLoopDelay` histogram (wall time) over the same window.
 */
export class TurnProbe {
  readonly #intervalMs: number;
  readonly #overMs: number;
  #timer: NodeJS.Timeout | undefined;
  #histogram: IntervalHistogram | undefined;
  #last = { wall: 0, cpu: 0 };
  #maxWallMs = 0;
  #maxCpuMs = 0;
  #overWall = 0;
  #overCpu = 0;
  #gcPauseMaxMs = 0;
  readonly #gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) this.#gcPauseMaxMs = Math.max(this.#gcPauseMaxMs, e.duration);
  });

  constructor(options: { readonly intervalMs?: number; readonly overMs: number }) {
    this.#intervalMs = options.intervalMs ?? 1;
    this.#overMs = options.overMs;
  }

  start(): void {
    this.stop();
    this.#maxWallMs = this.#maxCpuMs = this.#overWall = this.#overCpu = this.#gcPauseMaxMs = 0;
    this.#gc.observe({ entryTypes: ['gc'] });
    this.#histogram = monitorEventLoopDelay({ resolution: 1 });
    this.#histogram.enable();
    this.#last = { wall: performance.now(), cpu: cpuTimeMs() };
    this.#timer = setInterval(() => this.#tick(), this.#intervalMs);
  }

  /** Stops measuring (the last gap, up to now, counts) and returns the figures. */
  stop(): TurnProbeFigures {
    if (this.#timer !== undefined) {
      this.#tick();
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
    const h = this.#histogram;
    h?.disable();
    for (const e of this.#gc.takeRecords()) this.#gcPauseMaxMs = Math.max(this.#gcPauseMaxMs, e.duration);
    this.#gc.disconnect();
    this.#histogram = undefined;
    return {
      maxWallMs: this.#maxWallMs,
      maxCpuMs: this.#maxCpuMs,
      overWall: this.#overWall,
      overCpu: this.#overCpu,
      // The histogram's values are nanoseconds; an empty one reports a huge minimum and 0 maximum.
      delayMaxMs: h && h.count > 0 ? h.max / 1e6 : 0,
      delayP99Ms: h && h.count > 0 ? h.percentile(99) / 1e6 : 0,
      gcPauseMaxMs: this.#gcPauseMaxMs,
    };
  }

  #tick(): void {
    const [wall, cpu] = [performance.now(), cpuTimeMs()];
    const gapWall = wall - this.#last.wall;
    const gapCpu = cpu - this.#last.cpu;
    this.#last = { wall, cpu };
    this.#maxWallMs = Math.max(this.#maxWallMs, gapWall);
    this.#maxCpuMs = Math.max(this.#maxCpuMs, gapCpu);
    if (gapWall > this.#overMs) this.#overWall++;
    if (gapCpu > this.#overMs) this.#overCpu++;
  }
}

/** This process's CPU time (user + system, every thread) in ms. */
export function cpuTimeMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
