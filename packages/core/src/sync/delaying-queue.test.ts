import { describe, expect, it } from 'vitest';
import { FakeClock } from '../util/fake-clock.js';
import { DelayingQueue } from './delaying-queue.js';

/** Drains what is queued right now, marking each item done. */
async function drainNow<T>(q: DelayingQueue<T>): Promise<T[]> {
  const out: T[] = [];
  while (q.len() > 0) {
    const item = (await q.get())!;
    out.push(item);
    q.done(item);
  }
  return out;
}

describe('DelayingQueue', () => {
  it('adds items once their delay has passed, in ready-time order', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>(clock);
    q.addAfter('c', 30);
    q.addAfter('a', 10);
    q.addAfter('b', 20);
    clock.advance(9);
    expect(q.len()).toBe(0);
    expect(q.waitingLen()).toBe(3);
    clock.advance(1);
    expect(await drainNow(q)).toEqual(['a']);
    clock.advance(25);
    expect(await drainNow(q)).toEqual(['b', 'c']);
    expect(q.waitingLen()).toBe(0);
  });

  it('adds same-instant items in the order they were scheduled', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>(clock);
    for (const item of ['x', 'y', 'z']) q.addAfter(item, 10);
    clock.advance(10);
    expect(await drainNow(q)).toEqual(['x', 'y', 'z']);
  });

  it.each([
    { name: 'an earlier time replaces a later one', first: 100, second: 10, readyAt: 10 },
    { name: 'a later time does not postpone an earlier one', first: 10, second: 100, readyAt: 10 },
  ])('$name', async ({ first, second, readyAt }) => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>(clock);
    q.addAfter('a', first);
    q.addAfter('a', second);
    expect(q.waitingLen()).toBe(1);
    clock.advance(readyAt - 1);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(await drainNow(q)).toEqual(['a']);
    clock.advance(200);
    expect(q.len()).toBe(0); // the superseded schedule does not fire a second time
  });

  it('adds at once when the delay is not positive', () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>(clock);
    q.addAfter('now', 0);
    q.addAfter('past', -5);
    expect(q.len()).toBe(2);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('keeps one armed timer however many items wait', () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<number>(clock);
    for (let i = 1; i <= 50; i++) q.addAfter(i, i * 10);
    expect(clock.pendingTimers()).toBe(1);
    q.addAfter(0, 1); // earlier than the armed timer: re-armed, still one
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(500);
    expect(q.len()).toBe(51);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('deduplicates a delayed add with an item already queued', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>(clock);
    q.add('a');
    q.addAfter('a', 10);
    clock.advance(10);
    expect(q.len()).toBe(1);
    expect(await drainNow(q)).toEqual(['a']);
  });

  it('drops waiting items and timers on shutdown', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>(clock);
    q.addAfter('a', 10);
    q.shutDown();
    expect(clock.pendingTimers()).toBe(0);
    q.addAfter('b', 10);
    clock.advance(20);
    expect(q.len()).toBe(0);
    expect(await q.get()).toBeUndefined();
  });
});
