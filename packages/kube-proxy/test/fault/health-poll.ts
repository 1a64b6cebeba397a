// Polls status URLs from a worker thread, as a kubelet probes: each URL every `intervalMs`, one
// request at a time, each with a deadline (1 s, the kubelet's default probe timeout); a timeout's
// verdict waits two loop turns, so an answer that came while this thread was starved is read first. The fault
// suite's programs run in the test's own thread, so a poller there would be delayed by the very
// stalls it measures; the worker has its own event loop. (tools/bench's poller reports only the
// max and keeps no per-request latencies, so this one is separate.)
import { Worker } from 'node:worker_threads';

export interface UrlAnswers {
  readonly url: string;
  readonly answered: number;
  /** Requests that missed the deadline or failed, with why (`timeout`, the error) and when they were sent. */
  readonly failures: readonly string[];
  readonly maxMs: number;
  readonly p99Ms: number;
  /** Requests refused before the first answer (the status server not listening yet). */
  readonly beforeListening: number;
  /** Answers other than 200 in time (a 503 /healthz before the first sync is an answer, not a miss). */
  readonly not200: number;
}

const POLLER = `
const { parentPort, workerData } = require('node:worker_threads');
const { urls, intervalMs, deadlineMs } = workerData;
const stats = urls.map((url) => ({ url, times: [], failures: [], not200: 0, early: 0, up: false, busy: false }));
async function poll(s) {
  if (s.busy) return;
  s.busy = true;
  const start = performance.now();
  const ctrl = new AbortController();
  let answered = false;
  let lateMs = 0;
  // A starved thread (a loaded host) runs its due timers before it reads an answer that came while it
  // waited: the verdict waits two loop turns (each with a poll phase) and aborts only if none brought it.
  const deadline = setTimeout(() => {
    lateMs = Math.round(performance.now() - start - deadlineMs);
    setImmediate(() => setImmediate(() => { if (!answered) ctrl.abort(); }));
  }, deadlineMs);
  try {
    const res = await fetch(s.url, { signal: ctrl.signal });
    answered = true;
    await res.arrayBuffer();
    s.up = true;
    if (res.status !== 200) s.not200++;
  } catch (e) {
    answered = true;
    const timedOut = ctrl.signal.aborted;
    // Refused before the program's status server first answered: it is not listening yet.
    if (!s.up && !timedOut) { s.early++; s.busy = false; clearTimeout(deadline); return; }
    // When it was sent (UTC, as the program's log lines), to find what the program did meanwhile, and how
    // late this thread's own deadline timer ran (a starved poller, not the program, if it is large).
    const at = new Date(Date.now() - (performance.now() - start)).toISOString().slice(11, 23);
    s.failures.push((timedOut ? 'timeout' : String((e && e.cause) || e)) + ' (sent ' + at + (timedOut ? ', deadline timer ' + lateMs + ' ms late' : '') + ')');
  } finally {
    clearTimeout(deadline);
  }
  s.times.push(performance.now() - start);
  s.busy = false;
}
const timer = setInterval(() => { for (const s of stats) void poll(s); }, intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  parentPort.postMessage(stats.map((s) => ({ url: s.url, times: s.times, failures: s.failures, not200: s.not200, early: s.early })));
});
`;

export class HealthPoll {
  readonly #worker: Worker;

  constructor(urls: readonly string[], intervalMs = 100, deadlineMs = 1_000) {
    this.#worker = new Worker(POLLER, { eval: true, workerData: { urls, intervalMs, deadlineMs } });
  }

  /** Stops polling; what each URL saw. A request still in flight is not counted (it has its own deadline). */
  async stop(): Promise<UrlAnswers[]> {
    const answers = new Promise<{ url: string; times: number[]; failures: string[]; not200: number; early: number }[]>(
      (resolve, reject) => {
        this.#worker.once('message', resolve);
        this.#worker.once('error', reject);
      },
    );
    this.#worker.postMessage('stop');
    const raw = await answers;
    await this.#worker.terminate();
    return raw.map(({ url, times, failures, not200, early }) => {
      const sorted = [...times].sort((a, b) => a - b);
      const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
      return {
        url,
        answered: times.length - failures.length,
        failures,
        maxMs: at(1),
        p99Ms: at(0.99),
        beforeListening: early,
        not200,
      };
    });
  }
}
