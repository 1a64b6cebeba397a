/** Exponential backoff with jitter, for reconnects and handler retries. */
export interface BackoffOptions {
  /** First delay; default 100 ms. */
  readonly initialMs?: number;
  /** Ceiling; default 10 s. */
  readonly maxMs?: number;
  /** Growth per attempt; default 2. */
  readonly factor?: number;
  /** Each delay is scaled by a random factor in [1 - jitter, 1 + jitter]; default 0.2. */
  readonly jitter?: number;
}

/** Delay before retry number `attempt` (1 = first retry). Jitter keeps many clients from reconnecting in step. */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions = {},
  random: () => number = Math.random,
): number {
  const initial = options.initialMs ?? 100;
  const max = options.maxMs ?? 10_000;
  const jitter = options.jitter ?? 0.2;
  const base = Math.min(max, initial * (options.factor ?? 2) ** Math.max(0, attempt - 1));
  return Math.round(base * (1 - jitter + 2 * jitter * random()));
}

/** Resolves after `ms`, or at once (without error) when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
