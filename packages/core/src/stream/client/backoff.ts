import { backoffDelay, type BackoffOptions as Schedule } from '@kpng/kit';
import type { Clock } from '../../util/clock.js';

/** The reconnect schedule's overrides (the kit's backoff, counted by consecutive failures). */
export type BackoffOptions = Omit<Partial<Schedule>, 'resetAfterMs'>;

/** Reconnects and handler retries: 100 ms doubling to 10 s, up to 20% added at random. */
export const STREAM_BACKOFF = Object.freeze({ initialMs: 100, maxMs: 10_000, factor: 2, jitter: 0.2 });

/** Delay before retry number `attempt` (1 = first retry), in whole ms. Jitter keeps many clients from reconnecting in step. */
export function retryDelay(attempt: number, options: BackoffOptions = {}, random: () => number = Math.random): number {
  const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  return Math.round(backoffDelay(attempt - 1, { ...STREAM_BACKOFF, ...defined }, random));
}

/**
 * Resolves after `ms`, or at once (without error) when `signal` aborts. With `clock`, on its timer
 * (the system clock's timer does not keep the process alive); without, on a timer that does.
 */
export function sleep(ms: number, signal: AbortSignal | undefined, clock?: Clock): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      cancel();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    let cancel: () => void;
    if (clock) {
      const t = clock.setTimeout(done, ms);
      cancel = () => t.cancel();
    } else {
      const t = setTimeout(done, ms);
      cancel = () => clearTimeout(t);
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
