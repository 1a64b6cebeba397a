import { describe, expect, it } from 'vitest';
import { FAKE_CLOCK_EPOCH_MS, FakeClock } from './fake-clock.js';

describe('FakeClock', () => {
  it('starts at a fixed epoch and moves wall and monotonic time together', () => {
    const clock = new FakeClock();
    expect(clock.now()).toBe(FAKE_CLOCK_EPOCH_MS);
    expect(clock.monotonic()).toBe(0);
    clock.advance(1500);
    expect(clock.now()).toBe(FAKE_CLOCK_EPOCH_MS + 1500);
    expect(clock.monotonic()).toBe(1500);
  });

  it('fires timers in due order, each at its own due time, including timers set by callbacks', () => {
    const clock = new FakeClock();
    const fired: Array<[string, number]> = [];
    clock.setTimeout(() => fired.push(['b', clock.monotonic()]), 20);
    clock.setTimeout(() => {
      fired.push(['a', clock.monotonic()]);
      clock.setTimeout(() => fired.push(['a2', clock.monotonic()]), 5);
    }, 10);
    clock.setTimeout(() => fired.push(['late', clock.monotonic()]), 100);
    clock.advance(30);
    expect(fired).toEqual([
      ['a', 10],
      ['a2', 15],
      ['b', 20],
    ]);
    expect(clock.monotonic()).toBe(30);
    expect(clock.pendingTimers()).toBe(1);
    expect(clock.msUntilNextTimer()).toBe(70);
  });

  it('fires same-instant timers in creation order and skips cancelled ones', () => {
    const clock = new FakeClock();
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('first'), 5);
    const cancelled = clock.setTimeout(() => fired.push('cancelled'), 5);
    clock.setTimeout(() => fired.push('second'), 5);
    cancelled.cancel();
    clock.advance(5);
    expect(fired).toEqual(['first', 'second']);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('tick lets promise continuations schedule follow-up timers before time moves on', async () => {
    const clock = new FakeClock();
    const seenAt: number[] = [];
    const sleep = (ms: number) => new Promise<void>((r) => clock.setTimeout(r, ms));
    const loop = (async () => {
      for (let i = 0; i < 3; i++) {
        await sleep(10);
        seenAt.push(clock.monotonic());
      }
    })();
    await clock.tick(30);
    await loop;
    expect(seenAt).toEqual([10, 20, 30]);
  });
});
