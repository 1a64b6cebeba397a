/**
 * A kpng program (kpng-nft, the compat kube-proxy) running in a CHILD process, as an operator runs
 * it, observed from outside: its JSON log lines on stderr (`--logging-format=json`), its peak resident set, and the stalls of
 * its event loop (reported by `scripts/event-loop-probe.mjs`, preloaded with `--import`). Linux only.
 */
import { readFile } from 'node:fs/promises';
import { eachLine, spawnChild, type SpawnedChild } from '@kpng/kit';
import { peakRss } from '../nft/pipeline-rss.js';

export interface LogLine {
  readonly msg?: unknown;
  /** component-base's JSON: info lines carry their verbosity, error lines none. */
  readonly v?: unknown;
  readonly caller?: unknown;
  readonly [field: string]: unknown;
}

export interface EventLoopReport {
  readonly maxMs: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  /** The longest stalls (>= 50 ms), when they began: ms since the program started (a CPU profile's origin too). */
  readonly stalls: readonly { readonly atMs: number; readonly ms: number }[];
}

export interface ProxyProcessOptions {
  /** The program's main module (compiled JavaScript). */
  readonly entry: string;
  readonly args: readonly string[];
  /** Node's own options, e.g. `--cpu-prof`. */
  readonly nodeArgs?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

/** USER_HZ: 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS = 100;

const PROBE = new URL('../../scripts/event-loop-probe.mjs', import.meta.url).href;

type Waiter = {
  readonly match: (line: LogLine) => boolean;
  readonly resolve: (line: LogLine) => void;
  readonly reject: (e: Error) => void;
};

export class ProxyProcess {
  readonly #child: SpawnedChild;
  readonly #pid: number;
  readonly #exited: Promise<number | null>;
  readonly #waiters = new Set<Waiter>();
  readonly #tail: string[] = [];
  readonly #onAbort = (): void => void this.#child.kill('SIGTERM');
  #failure: Error | undefined;
  /** When the process was spawned (performance.now()). */
  readonly startedAt: number;

  constructor(private readonly options: ProxyProcessOptions) {
    this.startedAt = performance.now();
    this.#child = spawnChild(
      [process.execPath, ...(options.nodeArgs ?? []), '--import', PROBE, options.entry, ...options.args],
      { ...(options.env === undefined ? {} : { env: options.env }), onStderr: eachLine((text) => this.#line(text)) },
    );
    if (this.#child.pid === undefined) throw new Error(`cannot start ${options.entry}`);
    this.#pid = this.#child.pid;
    this.#exited = this.#child.exited.then((exit) => exit.exitCode);
    void this.#exited.then((code) =>
      this.#fail(new Error(`${options.entry} exited (${String(code)}):\n${this.#tail.join('\n')}`)),
    );
    options.signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** The first log line from now on that `match` accepts. */
  waitFor(match: (line: LogLine) => boolean, timeoutMs = 600_000): Promise<LogLine> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise<LogLine>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`no matching log line within ${timeoutMs} ms:\n${this.#tail.join('\n')}`));
      }, timeoutMs);
      const waiter: Waiter = {
        match,
        resolve: (line) => (clearTimeout(timer), resolve(line)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      };
      this.#waiters.add(waiter);
    });
  }

  /** The event loop's delays since the last call (or the start). */
  async eventLoop(): Promise<EventLoopReport> {
    const report = this.waitFor((line) => line.msg === 'event-loop probe', 30_000);
    this.#child.kill('SIGUSR2');
    const line = await report;
    return {
      maxMs: Number(line['maxMs']),
      p99Ms: Number(line['p99Ms']),
      meanMs: Number(line['meanMs']),
      stalls: Array.isArray(line['stalls']) ? (line['stalls'] as EventLoopReport['stalls']) : [],
    };
  }

  /** CPU time the process has used so far (user + system), ms: unlike wall time, barely moved by a busy machine. */
  async cpuMs(): Promise<number> {
    // /proc/<pid>/stat: fields 14 and 15 (utime, stime) in clock ticks, after the parenthesised name.
    const stat = await readFile(`/proc/${this.#pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  }

  /** VmHWM: the peak resident set so far, bytes. */
  peakRss(): Promise<number> {
    return peakRss(this.#pid);
  }

  async stop(): Promise<void> {
    this.options.signal?.removeEventListener('abort', this.#onAbort);
    this.#child.kill('SIGTERM');
    const killer = setTimeout(() => this.#child.kill('SIGKILL'), 10_000);
    await this.#exited;
    clearTimeout(killer);
  }

  #line(text: string): void {
    this.#tail.push(text);
    if (this.#tail.length > 20) this.#tail.shift();
    let line: LogLine;
    try {
      line = JSON.parse(text) as LogLine;
    } catch {
      return;
    }
    if (line.caller !== undefined && line.v === undefined)
      this.#fail(new Error(`${this.options.entry} logged an error: ${text}`));
    for (const w of [...this.#waiters]) {
      if (!w.match(line)) continue;
      this.#waiters.delete(w);
      w.resolve(line);
    }
  }

  #fail(e: Error): void {
    this.#failure ??= e;
    for (const w of this.#waiters) w.reject(e);
    this.#waiters.clear();
  }
}
