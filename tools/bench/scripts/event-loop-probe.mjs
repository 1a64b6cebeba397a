// Preloaded (`node --import`) into a program a benchmark runs in a child process: it records the
// event loop's delay from the first line of the program on, and on SIGUSR2 writes what it saw since
// the last report as one JSON line on stderr (where kpng's programs log), then starts afresh, so a
// benchmark reads the stalls of each phase (first sync, churn) separately. Plain JavaScript: the
// child runs compiled code, with no TypeScript loader.
import { monitorEventLoopDelay } from 'node:perf_hooks';

const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
// The longest stalls themselves, with when they began (ms since the program started, the origin of
// a --cpu-prof profile too): what to look up in a profile.
let stalls = [];
let last = performance.now();
setInterval(() => {
  const now = performance.now();
  const ms = now - last - 10;
  if (ms >= 50) {
    stalls.push({ atMs: Math.round(last), ms: Math.round(ms) });
    stalls = stalls.sort((a, b) => b.ms - a.ms).slice(0, 5);
  }
  last = now;
}, 10).unref();
process.on('SIGUSR2', () => {
  const ms = (ns) => Math.round(ns / 1e4) / 100;
  const report = {
    msg: 'event-loop probe',
    maxMs: ms(histogram.max),
    p99Ms: ms(histogram.percentile(99)),
    meanMs: ms(histogram.mean),
    samples: histogram.count,
    stalls,
  };
  process.stderr.write(`${JSON.stringify(report)}\n`);
  histogram.reset();
  stalls = [];
});
