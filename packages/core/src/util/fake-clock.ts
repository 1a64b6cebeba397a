import type { Clock } from './clock.js';

interface FakeTimer {
  readonly dueAt: number;
  /** Creation order: timers due at the same instant fire in the order they were set. */
  readonly seq: number;
  readonly fn: () => void;
  cancelled: boolean;
}

/** 2025-01-01T00:00:00Z: a fixed, readable epoch so tests never depend on the real date. */
export const FAKE_CLOCK_EPOCH_MS = Date.UTC(2025, 0, 1);

/**
 * A Clock whose time only moves when a test says so. `now()` and `monotonic()` advance together;
 * timers fire in due order, each one seeing the clock at its own due time, so code that re-arms
 * timers from a callback behaves as it would in real time.
 */
export class FakeClock implements Clock {
  private epochMs: number;
  private monotonicMs = 0;
  private timers: FakeTimer[] = [];
  private nextSeq = 0;

  constructor(startEpochMs: number = FAKE_CLOCK_EPOCH_MS) {
    this.epochMs = startEpochMs;
  }

  now(): number {
    return this.epochMs;
  }

  monotonic(): number {
    return this.monotonicMs;
  }

  setTimeout(fn: () => void, ms: number): { cancel(): void } {
    const timer: FakeTimer = { dueAt: this.monotonicMs + Math.max(0, ms), seq: this.nextSeq++, fn, cancelled: false };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  /** Number of timers set and neither fired nor cancelled. */
  pendingTimers(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /** Milliseconds until the next live timer is due, or undefined when none is set. */
  msUntilNextTimer(): number | undefined {
    const next = this.nextDue();
    return next === undefined ? undefined : next.dueAt - this.monotonicMs;
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due on the way (including timers that
   * callbacks set along the way), synchronously. Use `tick` when code under test awaits promises.
   */
  advance(ms: number): void {
    const target = this.monotonicMs + ms;
    for (let next = this.nextDue(); next && next.dueAt <= target; next = this.nextDue()) {
      this.fire(next);
    }
    this.moveTo(target);
  }

  /**
   * Like `advance`, but lets promise continuations run after every fired timer (and once at the
   * end), so async code that reacts to a timer can schedule follow-up timers at the right moment.
   */
  async tick(ms = 0): Promise<void> {
    const target = this.monotonicMs + ms;
    await flushPromises();
    for (let next = this.nextDue(); next && next.dueAt <= target; next = this.nextDue()) {
      this.fire(next);
      await flushPromises();
    }
    this.moveTo(target);
    await flushPromises();
  }

  /** Moves wall-clock time only (e.g. an NTP step); monotonic time and timers are unaffected. */
  setWallClock(epochMs: number): void {
    this.epochMs = epochMs;
  }

  private fire(timer: FakeTimer): void {
    this.timers = this.timers.filter((t) => t !== timer);
    this.moveTo(timer.dueAt);
    timer.fn();
  }

  private moveTo(monotonicMs: number): void {
    if (monotonicMs <= this.monotonicMs) return;
    this.epochMs += monotonicMs - this.monotonicMs;
    this.monotonicMs = monotonicMs;
  }

  private nextDue(): FakeTimer | undefined {
    this.timers = this.timers.filter((t) => !t.cancelled);
    let best: FakeTimer | undefined;
    for (const t of this.timers) {
      if (!best || t.dueAt < best.dueAt || (t.dueAt === best.dueAt && t.seq < best.seq)) best = t;
    }
    return best;
  }
}

/**
 * Lets every pending promise continuation run. A macrotask boundary drains the whole microtask
 * queue, including continuations queued by other continuations; two boundaries also cover one
 * round of `setImmediate` scheduled by the code under test.
 */
export async function flushPromises(): Promise<void> {
  for (let i = 0; i < 2; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
