import {
  monitorEventLoopDelay,
  PerformanceObserver,
  type IntervalHistogram,
  type PerformanceEntry,
} from 'node:perf_hooks';

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
  /**
   * The same as `maxCpuMs` and `overCpu` in the event loop's own thread's CPU time
   * (`process.threadCpuUsage`, Node 23.9 and later; undefined before): a turn's work without what
   * other threads did meanwhile (V8's concurrent marking and sweeping, the module loader's thread),
   * GC pauses of the loop's thread included.
   */
  readonly maxThreadCpuMs?: number;
  readonly overThreadCpu?: number;
  /**
   * The five gaps that used the most CPU, longest first: when each began (ms since `start()`), its
   * CPU and wall ms, and the GC pauses within it (ms): what to look up in a `--cpu-prof` profile.
   */
  readonly longest: readonly ProbeGap[];
}

export interface ProbeGap {
  readonly atMs: number;
  readonly cpuMs: number;
  /** The event loop's thread's CPU ms, where Node reports it. */
  readonly threadCpuMs?: number;
  readonly wallMs: number;
  readonly gcMs: number;
}

/** `process.threadCpuUsage` (Node 23.9 and later): this thread's CPU time, µs. */
const threadCpuUsage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.bind(process);

function threadCpuMs(): number {
  if (threadCpuUsage === undefined) return 0;
  const { user, system } = threadCpuUsage();
  return (user + system) / 1000;
}

/**
 * Measures every event-loop turn of this process, whoever runs it (gRPC, a decode, a node view):
 * a timer ticks every `intervalMs` (default 1) and reads the wall clock and this process's CPU time
 * at each tick. A tick late by more than the interval is held by what ran between it and the last
 * tick, so the CPU used between them is at least the longest turn's work there (a conservative
 * figure: it may also hold a few short turns, and other threads' time, GC helpers included). Where
 * Node reports it, the event loop's own thread's CPU as well, which leaves other threads out. Beside
 * them, Node's `monitorEventLoopDelay` histogram (wall time) over the same window.
 */
export class TurnProbe {
  readonly #intervalMs: number;
  readonly #overMs: number;
  #timer: NodeJS.Timeout | undefined;
  #histogram: IntervalHistogram | undefined;
  #last = { wall: 0, cpu: 0, thread: 0 };
  #maxWallMs = 0;
  #maxCpuMs = 0;
  #maxThreadCpuMs = 0;
  #overWall = 0;
  #overCpu = 0;
  #overThreadCpu = 0;
  #gcPauseMaxMs = 0;
  #startedAt = 0;
  #longest: { atMs: number; cpuMs: number; threadCpuMs: number; wallMs: number; end: number }[] = [];
  #gcPauses: { start: number; duration: number }[] = [];
  readonly #gc = new PerformanceObserver((list) => this.#onGc(list.getEntries()));

  constructor(options: { readonly intervalMs?: number; readonly overMs: number }) {
    this.#intervalMs = options.intervalMs ?? 1;
    this.#overMs = options.overMs;
  }

  start(): void {
    this.stop();
    this.#maxWallMs = this.#maxCpuMs = this.#overWall = this.#overCpu = this.#gcPauseMaxMs = 0;
    this.#maxThreadCpuMs = this.#overThreadCpu = 0;
    this.#longest = [];
    this.#gcPauses = [];
    this.#startedAt = performance.now();
    this.#gc.observe({ entryTypes: ['gc'] });
    this.#histogram = monitorEventLoopDelay({ resolution: 1 });
    this.#histogram.enable();
    this.#last = { wall: performance.now(), cpu: cpuTimeMs(), thread: threadCpuMs() };
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
    this.#onGc(this.#gc.takeRecords());
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
      ...(threadCpuUsage !== undefined
        ? { maxThreadCpuMs: this.#maxThreadCpuMs, overThreadCpu: this.#overThreadCpu }
        : {}),
      longest: this.#longest.map(({ atMs, cpuMs, threadCpuMs, wallMs, end }) => {
        const begin = this.#startedAt + atMs;
        let gcMs = 0;
        for (const p of this.#gcPauses) {
          gcMs += Math.max(0, Math.min(end, p.start + p.duration) - Math.max(begin, p.start));
        }
        return {
          atMs: round1(atMs),
          cpuMs: round1(cpuMs),
          ...(threadCpuUsage !== undefined ? { threadCpuMs: round1(threadCpuMs) } : {}),
          wallMs: round1(wallMs),
          gcMs: round1(gcMs),
        };
      }),
    };
  }

  #onGc(entries: readonly PerformanceEntry[]): void {
    for (const e of entries) {
      this.#gcPauseMaxMs = Math.max(this.#gcPauseMaxMs, e.duration);
      this.#gcPauses.push({ start: e.startTime, duration: e.duration });
    }
  }

  #tick(): void {
    const [wall, cpu, thread] = [performance.now(), cpuTimeMs(), threadCpuMs()];
    const gapWall = wall - this.#last.wall;
    const gapCpu = cpu - this.#last.cpu;
    const gapThread = thread - this.#last.thread;
    this.#last = { wall, cpu, thread };
    this.#maxWallMs = Math.max(this.#maxWallMs, gapWall);
    this.#maxCpuMs = Math.max(this.#maxCpuMs, gapCpu);
    this.#maxThreadCpuMs = Math.max(this.#maxThreadCpuMs, gapThread);
    if (gapWall > this.#overMs) this.#overWall++;
    if (gapCpu > this.#overMs) this.#overCpu++;
    if (gapThread > this.#overMs) this.#overThreadCpu++;
    const top = this.#longest;
    if (top.length < 5 || gapCpu > top[top.length - 1]!.cpuMs) {
      const atMs = wall - gapWall - this.#startedAt;
      top.push({ atMs, cpuMs: gapCpu, threadCpuMs: gapThread, wallMs: gapWall, end: wall });
      top.sort((a, b) => b.cpuMs - a.cpuMs);
      if (top.length > 5) top.pop();
    }
  }
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

/** This process's CPU time (user + system, every thread) in ms. */
export function cpuTimeMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
