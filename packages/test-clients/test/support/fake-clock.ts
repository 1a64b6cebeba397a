import type { Cancel, Clock } from '../../src/util/clock.js';

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
}

/**
 * A manual clock. `advance(ms)` moves time forward, firing due timers in order and letting the
 * promise chains they start run to completion (up to the next timer) before moving on.
 */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: Timer[] = [];

  constructor(start = 1_700_000_000_000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): Cancel {
    const timer: Timer = { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn };
    this.#timers.push(timer);
    return { cancel: () => void (this.#timers = this.#timers.filter((t) => t !== timer)) };
  }

  /** Timers not yet fired. */
  get pendingTimers(): number {
    return this.#timers.length;
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    await settle();
    for (;;) {
      const next = this.#timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (next === undefined) break;
      this.#timers = this.#timers.filter((t) => t !== next);
      this.#now = Math.max(this.#now, next.at);
      next.fn();
      await settle();
    }
    this.#now = target;
    await settle();
  }

  /** Advances in `step` increments until `done()` holds; throws after `maxMs` of fake time. */
  async advanceUntil(done: () => boolean, maxMs: number, step = 1): Promise<void> {
    let spent = 0;
    while (!done()) {
      if (spent >= maxMs) throw new Error(`condition not met within ${maxMs} ms of fake time`);
      await this.advance(step);
      spent += step;
    }
  }
}

/** Lets every queued promise continuation run (one macrotask turn drains the microtask queue). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
