/**
 * Polls a program's health and metrics URLs from a worker thread (`scripts/health-poller.mjs`), so
 * the benchmark's own busy main thread does not delay the answers it times.
 */
import { Worker } from 'node:worker_threads';

export interface EndpointAnswers {
  readonly url: string;
  readonly answered: number;
  readonly failed: number;
  /** The slowest answer (or unanswered request), ms. */
  readonly maxMs: number;
  /** Requests that took over 1 s (a kubelet probe's default timeout). */
  readonly over1s: number;
}

export class HealthPoll {
  readonly #worker: Worker;
  #stopped: Promise<EndpointAnswers[]> | undefined;

  constructor(urls: readonly string[], intervalMs = 200) {
    this.#worker = new Worker(new URL('../../scripts/health-poller.mjs', import.meta.url), {
      workerData: { urls, intervalMs },
    });
  }

  /** Stops polling (once; later calls return the same answers): what each URL saw since the start. */
  stop(): Promise<EndpointAnswers[]> {
    this.#stopped ??= this.#stop();
    return this.#stopped;
  }

  async #stop(): Promise<EndpointAnswers[]> {
    const answers = new Promise<EndpointAnswers[]>((resolve, reject) => {
      this.#worker.once('message', (m: EndpointAnswers[]) => resolve(m));
      this.#worker.once('error', reject);
    });
    this.#worker.postMessage('stop');
    const result = await answers;
    await this.#worker.terminate();
    return result;
  }
}
