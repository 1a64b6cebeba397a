/** Time as seen by core. Injected everywhere a decision depends on time, so tests use a fake. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Monotonic milliseconds, for measuring durations. */
  monotonic(): number;
  setTimeout(fn: () => void, ms: number): { cancel(): void };
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return { cancel: () => clearTimeout(t) };
  },
};
