import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { EventBatcher, NodeView } from '@kpng/core/runtime';
import { nodeName, type NodeLocalState } from '@kpng/core';
import { serveLocalState, StateHub, watchLocalState } from '@kpng/core/stream';
import { createChurn } from '../scenarios/churn.js';
import { sliceEvent, toModelEvents } from '../scenarios/model-events.js';
import { garbageCollector } from '../runner/gc.js';
import { summarize } from '../runner/stats.js';
import { defineSuite } from './suite.js';

const MiB = 1024 * 1024;
/** `PerformanceEntry.detail.kind` of a `gc` entry (perf_hooks.constants.NODE_PERFORMANCE_GC_*). */
const GC_KINDS: Readonly<Record<number, string>> = { 1: 'minor', 2: 'major', 4: 'incremental', 8: 'weakcb' };

interface Sample {
  readonly atMs: number;
  readonly changes: number;
  readonly rssBytes: number;
  readonly heapAfterGcBytes: number;
  readonly handles: number;
}

/**
 * The soak (issue 25): the churn scenario's EndpointSlice changes at `--rate` per second (default
 * 100), as raw objects through the kube source's `EventBatcher` (conversion a 10 ms budget per turn),
 * into core's model, node view and local stream (a unix socket, and a client in this process
 * decoding every state it gets), for `--minutes` (default 30) or `--changes` (default 100,000),
 * whichever ends first. Every `--sample-s` (default 10) a sample: RSS, heap after a full GC, open
 * handles (`process.getActiveResourcesInfo()`).
 *
 * Figures: `soak.rss.slope` and `soak.heap-after-gc.slope` (MiB per hour, least squares over the
 * samples after the first fifth: start-up growth is not a leak), the first and last heap after GC,
 * with the last over the first as the reference ratio (`soak.heap-after-gc.end.vs.start`), the
 * event loop's p99 delay per window between samples (`soak.event-loop-p99`: median and p99 of the
 * windows) with the 1-minute load they ran at (`soak.load-1m`), the
 * longest event-loop stall (`monitorEventLoopDelay`, over the windows between samples: a sample's
 * forced GC is the bench's, reported apart as `soak.bench-gc.max`) and the most CPU time the process
 * used while its event loop was held (`soak.stall-cpu.max`, the figure to read on a loaded machine), open handles at start and end,
 * changes applied.
 * A flat run: slopes near 0, the ratio near 1x, the same handles at both ends.
 */
export default defineSuite({
  name: 'soak',
  description: 'churn for 30 min or 100,000 changes: RSS and heap slope, event-loop stall max, open handles',
  scenarios: ['churn'],
  async run(ctx) {
    const minutes = Number(ctx.options['minutes'] ?? 30);
    const maxChanges = Number(ctx.options['changes'] ?? 100_000);
    const rate = Number(ctx.options['rate'] ?? 100);
    const sampleMs = Number(ctx.options['sample-s'] ?? 10) * 1000;
    const gc = garbageCollector();
    if (!gc) throw new Error('soak needs a garbage collector (--expose-gc could not be set)');

    const objects = ctx.objects();
    const core = new NodeView({ nodeName: nodeName(objects.benchNode) });
    const hub = new StateHub<NodeLocalState>({ instanceId: 'soak' });
    core.addLocalConsumer({ publish: (state, changes) => void hub.publish(state, changes) });
    core.model.apply(toModelEvents(objects));
    for (const kind of ['Service', 'EndpointSlice', 'Node', 'ServiceCIDR'] as const) core.model.synced(kind);

    const dir = await mkdtemp(join(tmpdir(), 'kpng-soak-'));
    const server = await serveLocalState({ hub, address: `unix://${join(dir, 'kpng.sock')}` });
    const stop = new AbortController();
    let received = 0;
    const watching = watchLocalState(server.address, () => void received++, { signal: stop.signal });

    const batcher = new EventBatcher((batch) => core.model.apply(batch));
    const churn = createChurn(objects, { ratePerSecond: rate, durationSeconds: Math.ceil(maxChanges / rate) });
    const loop = monitorEventLoopDelay({ resolution: 10 });
    const samples: Sample[] = [];
    const started = performance.now();
    let changes = 0;
    /** The longest stall over the windows between samples (ns), and the longest forced GC of a sample (ms). */
    let stallMaxNs = 0;
    let benchGcMaxMs = 0;
    /**
     * Ends a measuring window: its maximum joins the run's, then `reset()`. Node's histogram keeps the
     * time of its last tick across disable/enable, so without the reset the first tick after a
     * sample would count the sample's own forced GC as a stall of the program (reproduced: disable,
     * a busy loop, enable gives a maximum as long as the loop; the run it misled: the root CHANGELOG.md).
     */
    /**
     * The program's own GC pauses (ms, from the `gc` performance entries, which arrive later): an
     * entry that starts within a sample's forced GC is the bench's and left out.
     */
    const sampleGcs: { start: number; end: number }[] = [];
    let gcPauseMaxMs = 0;
    let gcPauseMaxKind = 'none';
    let gcPauseTotalMs = 0;
    const gcObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        if (sampleGcs.some((w) => e.startTime >= w.start && e.startTime <= w.end)) continue;
        if (e.duration > gcPauseMaxMs) {
          gcPauseMaxMs = e.duration;
          gcPauseMaxKind = GC_KINDS[(e as { detail?: { kind?: number } }).detail?.kind ?? 0] ?? 'other';
        }
        gcPauseTotalMs += e.duration;
      }
    });
    /**
     * The same stalls in CPU time, which a loaded machine does not inflate: a 10 ms probe timer reads
     * this process's CPU time (every thread) at each tick; the CPU used between two ticks more than
     * 50 ms apart is what the program did while its event loop was held (a turn's work, GC included).
     */
    const cpuStall: { maxMs: number; wallMs: number; last: { wall: number; cpu: number } | undefined } = {
      maxMs: 0,
      wallMs: 0,
      last: undefined,
    };
    /** Measures from now (a window starts); `endWindow` stops it, so a sample's forced GC is left out. */
    const restartProbe = () => (cpuStall.last = { wall: performance.now(), cpu: cpuTimeMs() });
    const probe = setInterval(() => {
      if (!cpuStall.last) return;
      const [wall, cpu] = [performance.now(), cpuTimeMs()];
      if (wall - cpuStall.last.wall > 50 && cpu - cpuStall.last.cpu > cpuStall.maxMs) {
        cpuStall.maxMs = cpu - cpuStall.last.cpu;
        cpuStall.wallMs = wall - cpuStall.last.wall;
      }
      cpuStall.last = { wall, cpu };
    }, 10);
    /** Per window between samples: `monitorEventLoopDelay`'s p99 (ms), and the 1-minute load at its end. */
    const windowP99Ms: number[] = [];
    const loads: number[] = [];
    const endWindow = () => {
      cpuStall.last = undefined;
      loop.disable();
      stallMaxNs = Math.max(stallMaxNs, loop.max);
      if (loop.count > 0) windowP99Ms.push(loop.percentile(99) / 1e6);
      loads.push(loadavg()[0]!);
      loop.reset();
    };
    const sample = () => {
      const gcStarted = performance.now();
      gc();
      const gcEnded = performance.now();
      sampleGcs.push({ start: gcStarted, end: gcEnded });
      benchGcMaxMs = Math.max(benchGcMaxMs, gcEnded - gcStarted);
      samples.push({
        atMs: performance.now() - started,
        changes,
        rssBytes: process.memoryUsage.rss(),
        heapAfterGcBytes: process.memoryUsage().heapUsed,
        handles: process.getActiveResourcesInfo().length,
      });
      const s = samples.at(-1)!;
      ctx.log(
        `soak ${Math.round(s.atMs / 1000)} s: ${changes} changes, ${received} states received, ` +
          `rss ${(s.rssBytes / MiB).toFixed(1)} MiB, heap ${(s.heapAfterGcBytes / MiB).toFixed(1)} MiB, ` +
          `${s.handles} handles, stall max ${(stallMaxNs / 1e6).toFixed(1)} ms ` +
          `(CPU ${cpuStall.maxMs.toFixed(1)} ms in a ${cpuStall.wallMs.toFixed(0)} ms gap), ` +
          `program GC pause max ${gcPauseMaxMs.toFixed(0)} ms (${gcPauseMaxKind}), bench GC max ${benchGcMaxMs.toFixed(0)} ms`,
      );
    };
    // Wait for the first state, then measure from a settled start.
    while (received === 0 && !ctx.signal.aborted) await new Promise((r) => setTimeout(r, 50));
    sample();
    gcObserver.observe({ entryTypes: ['gc'] });
    loop.enable();
    restartProbe();
    let nextSample = sampleMs;
    try {
      const endMs = minutes * 60_000;
      while (!ctx.signal.aborted && changes < maxChanges && performance.now() - started < endMs) {
        const step = churn.next(Date.now());
        if (!step) break;
        const due = step.offsetMs - (performance.now() - started);
        // Behind schedule (a loaded machine): still a turn per change, so the bench's own loop
        // (making the next change) is never a stall counted against the program.
        await new Promise((r) => (due > 0 ? setTimeout(r, due) : setImmediate(r)));
        const slice = step.slice;
        batcher.push(() => sliceEvent(slice));
        changes++;
        if (performance.now() - started >= nextSample) {
          endWindow(); // the GC of the sample is the bench's, not the program's stall
          sample();
          loop.enable();
          restartProbe();
          nextSample += sampleMs;
        }
      }
      await new Promise((r) => setTimeout(r, 1000)); // the last states reach the client
      endWindow();
      sample();
    } finally {
      clearInterval(probe);
      gcObserver.disconnect();
      stop.abort();
      await watching;
      await server.close();
      core.close();
      hub.close();
      await rm(dir, { recursive: true, force: true });
    }

    const steady = samples.slice(Math.floor(samples.length / 5));
    const perHour = (pick: (s: Sample) => number) => (slope(steady, pick) * 3_600_000) / MiB;
    const first = samples[0]!;
    const last = samples.at(-1)!;
    ctx.reportValue('soak.changes', changes, 'count');
    ctx.reportValue('soak.states-received', received, 'count');
    ctx.reportValue('soak.minutes', Number((last.atMs / 60_000).toFixed(2)), 'min');
    ctx.reportValue('soak.rss.slope', Number(perHour((s) => s.rssBytes).toFixed(3)), 'MiB/h');
    ctx.reportValue('soak.heap-after-gc.slope', Number(perHour((s) => s.heapAfterGcBytes).toFixed(3)), 'MiB/h');
    ctx.reportValue('soak.rss.start', first.rssBytes, 'bytes');
    ctx.reportValue('soak.rss.end', last.rssBytes, 'bytes');
    ctx.reportValue('soak.heap-after-gc.start', first.heapAfterGcBytes, 'bytes');
    ctx.reportValue('soak.heap-after-gc.end', last.heapAfterGcBytes, 'bytes');
    ctx.reportValue(
      'soak.heap-after-gc.end.vs.start',
      Number((last.heapAfterGcBytes / first.heapAfterGcBytes).toFixed(4)),
      'x',
    );
    ctx.reportValue('soak.event-loop-max', Number((stallMaxNs / 1e6).toFixed(1)), 'ms');
    // The event loop's p99 delay per window (median and p99 over the windows), and the load they ran at.
    for (const [metric, values, unit] of [
      ['soak.event-loop-p99', windowP99Ms, 'ms'],
      ['soak.load-1m', loads, 'load'],
    ] as const) {
      if (values.length === 0) continue;
      const f = summarize(values);
      const r = (n: number) => Number(n.toFixed(1));
      ctx.report({ scenario: ctx.scenario, metric, value: r(f.p50), unit, n: f.n, p50: r(f.p50), p99: r(f.p99) });
    }
    // The longest stall's work in CPU time (goal: under 100 ms), and the wall time it stalled.
    ctx.reportValue('soak.stall-cpu.max', Number(cpuStall.maxMs.toFixed(1)), 'ms');
    ctx.reportValue('soak.stall-cpu.max.wall', Number(cpuStall.wallMs.toFixed(1)), 'ms');
    // The bench's own forced full GCs (one per sample, outside the measured windows): what the
    // event-loop maximum counted before the windows were reset.
    ctx.reportValue('soak.bench-gc.max', Number(benchGcMaxMs.toFixed(1)), 'ms');
    // The program's own GC pauses (V8's gc performance entries), to tell a GC stall from a long turn.
    ctx.reportValue('soak.gc-pause.max', Number(gcPauseMaxMs.toFixed(1)), 'ms');
    ctx.reportValue('soak.gc-pause.total', Number(gcPauseTotalMs.toFixed(0)), 'ms');
    ctx.reportValue('soak.handles.start', first.handles, 'count');
    ctx.reportValue('soak.handles.end', last.handles, 'count');
  },
});

/** This process's CPU time (user + system, every thread) in ms. */
function cpuTimeMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Least-squares slope of `pick` over time (per ms); 0 with fewer than two samples. */
function slope(samples: readonly Sample[], pick: (s: Sample) => number): number {
  if (samples.length < 2) return 0;
  const n = samples.length;
  const mx = samples.reduce((a, s) => a + s.atMs, 0) / n;
  const my = samples.reduce((a, s) => a + pick(s), 0) / n;
  let num = 0;
  let den = 0;
  for (const s of samples) {
    num += (s.atMs - mx) * (pick(s) - my);
    den += (s.atMs - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}
