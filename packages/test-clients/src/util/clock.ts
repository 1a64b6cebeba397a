/**
 * Time as the clients see it. Every timestamp a client reports (watch event received, probe
 * attempt started, first success) comes from one Clock, so latencies are differences on one clock;
 * tests inject `FakeClock` (`test/support/fake-clock.ts`).
 */
export interface Clock {
  /** Epoch milliseconds, with sub-millisecond precision where the clock has it. */
  now(): number;
  /** Calls `fn` after `ms`; the timer never keeps the process alive. */
  setTimeout(fn: () => void, ms: number): Cancel;
}

export interface Cancel {
  cancel(): void;
}

/**
 * The process clock: `performance.timeOrigin + performance.now()`, i.e. epoch milliseconds that
 * advance monotonically (no jumps when NTP steps the wall clock) with microsecond resolution.
 */
export const systemClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  setTimeout(fn, ms) {
    const timer = setTimeout(fn, Math.max(0, ms));
    timer.unref();
    return { cancel: () => clearTimeout(timer) };
  },
};

/** Resolves after `ms` on `clock`, or at once (without error) when `signal` aborts. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = (): void => {
      timer.cancel();
      resolve();
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
