// A worker thread that polls a program's health and metrics endpoints, on an event loop of its
// own: the benchmark's main thread serves the fake API server and can itself stall while it
// encodes a big LIST, which must not count against the program being measured. Every
// `intervalMs` it GETs each URL (one request at a time per URL) and records how long the answer
// took; posts `{ url, answered, failed, maxMs, over1s }[]` when told 'stop'.
import { parentPort, workerData } from 'node:worker_threads';

const { urls, intervalMs } = workerData;
const stats = new Map(urls.map((url) => [url, { url, answered: 0, failed: 0, maxMs: 0, over1s: 0, busy: false }]));
let stopping = false;

async function poll(s) {
  if (s.busy) return;
  s.busy = true;
  const start = (s.startedAt = performance.now());
  try {
    const res = await fetch(s.url, { signal: AbortSignal.timeout(30_000) });
    await res.arrayBuffer();
    s.answered++;
  } catch {
    s.failed++;
  }
  const ms = performance.now() - start;
  if (ms > s.maxMs) s.maxMs = ms;
  if (ms > 1000) s.over1s++;
  s.busy = false;
}

const timer = setInterval(() => {
  if (!stopping) for (const s of stats.values()) void poll(s);
}, intervalMs);

parentPort.on('message', (msg) => {
  if (msg !== 'stop') return;
  stopping = true;
  clearInterval(timer);
  // A request still unanswered now has taken at least this long.
  for (const s of stats.values()) if (s.busy) s.maxMs = Math.max(s.maxMs, performance.now() - s.startedAt);
  parentPort.postMessage(
    [...stats.values()].map(({ busy, startedAt, ...rest }) => ({ ...rest, maxMs: Math.round(rest.maxMs * 100) / 100 })),
  );
  parentPort.close();
});
