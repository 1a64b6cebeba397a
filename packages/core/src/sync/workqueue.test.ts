import { describe, expect, it } from 'vitest';
import { flushPromises } from '../util/fake-clock.js';
import { WorkQueue } from './workqueue.js';

/** Resolves with what `promise` settled to so far, or 'pending'. */
async function peek<T>(promise: Promise<T>): Promise<T | 'pending'> {
  let result: T | 'pending' = 'pending';
  void promise.then((v) => (result = v));
  await flushPromises();
  return result;
}

describe('WorkQueue', () => {
  it('hands items out in FIFO order', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.add('b');
    q.add('c');
    expect([await q.get(), await q.get(), await q.get()]).toEqual(['a', 'b', 'c']);
  });

  it('keeps one queued copy of an item added many times', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.add('b');
    q.add('a');
    q.add('a');
    expect(q.len()).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    expect(q.len()).toBe(0);
  });

  it('does not hand out an item re-added while processing, then queues it once on done', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    const first = await q.get();
    q.add('a');
    q.add('a');
    expect(q.len()).toBe(0);
    const second = q.get();
    expect(await peek(second)).toBe('pending');
    q.done(first!);
    expect(await peek(second)).toBe('a');
    q.done('a');
    expect(q.len()).toBe(0);
    expect(await peek(q.get())).toBe('pending');
  });

  it('does not process an item again when it was not re-added during processing', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.done((await q.get())!);
    expect(q.len()).toBe(0);
  });

  it('wakes a blocked get when an item arrives', async () => {
    const q = new WorkQueue<string>();
    const pending = q.get();
    expect(await peek(pending)).toBe('pending');
    q.add('x');
    expect(await pending).toBe('x');
  });

  it('never lets two workers process the same key at once, and loses no add', async () => {
    const q = new WorkQueue<string>();
    const keys = ['k0', 'k1', 'k2'];
    const inFlight = new Map<string, number>();
    let maxConcurrentPerKey = 0;
    let maxConcurrentOverall = 0;
    const processedAfterLastAdd = new Set<string>();
    let rng = 42;
    const random = () => (rng = (rng * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;

    const worker = async () => {
      for (let item = await q.get(); item !== undefined; item = await q.get()) {
        inFlight.set(item, (inFlight.get(item) ?? 0) + 1);
        maxConcurrentPerKey = Math.max(maxConcurrentPerKey, inFlight.get(item)!);
        maxConcurrentOverall = Math.max(
          maxConcurrentOverall,
          [...inFlight.values()].reduce((a, b) => a + b, 0),
        );
        processedAfterLastAdd.add(item);
        for (let i = Math.floor(random() * 5); i >= 0; i--) await Promise.resolve();
        inFlight.set(item, inFlight.get(item)! - 1);
        q.done(item);
      }
    };
    const workers = [worker(), worker(), worker()];
    for (let round = 0; round < 200; round++) {
      const key = keys[Math.floor(random() * keys.length)]!;
      processedAfterLastAdd.delete(key);
      q.add(key);
      for (let i = Math.floor(random() * 3); i > 0; i--) await Promise.resolve();
    }
    await flushPromises();
    const drained = q.shutDownWithDrain();
    await Promise.all(workers);
    await drained;

    expect(maxConcurrentPerKey).toBe(1);
    expect(maxConcurrentOverall).toBeGreaterThan(1); // the workers really did run side by side
    // Every key added was processed at least once after its last add.
    for (const key of keys) expect(processedAfterLastAdd.has(key)).toBe(true);
  });

  describe('shutdown', () => {
    it('resolves blocked and later gets with undefined and ignores adds', async () => {
      const q = new WorkQueue<string>();
      const blocked = q.get();
      q.shutDown();
      expect(await blocked).toBeUndefined();
      q.add('late');
      expect(q.len()).toBe(0);
      expect(await q.get()).toBeUndefined();
      expect(q.isShuttingDown()).toBe(true);
    });

    it('still hands out items queued before the shutdown, then undefined', async () => {
      const q = new WorkQueue<string>();
      q.add('a');
      q.shutDown();
      expect(await q.get()).toBe('a');
      expect(await q.get()).toBeUndefined();
    });

    it('shutDownWithDrain waits until in-flight items are done', async () => {
      const q = new WorkQueue<string>();
      q.add('a');
      q.add('b');
      const a = (await q.get())!;
      const b = (await q.get())!;
      const drained = q.shutDownWithDrain();
      expect(await peek(drained)).toBe('pending');
      q.done(a);
      expect(await peek(drained)).toBe('pending');
      q.done(b);
      expect(await peek(drained)).toBeUndefined();
    });

    it('shutDownWithDrain resolves at once when nothing is in flight', async () => {
      const q = new WorkQueue<string>();
      await expect(q.shutDownWithDrain()).resolves.toBeUndefined();
    });
  });

  it('stays correct across many items (the read index compacts)', async () => {
    const q = new WorkQueue<number>();
    for (let i = 0; i < 5000; i++) q.add(i);
    const seen: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const item = (await q.get())!;
      seen.push(item);
      q.done(item);
    }
    for (let i = 5000; i < 5100; i++) q.add(i);
    expect(q.len()).toBe(2100);
    while (q.len() > 0) seen.push((await q.get())!);
    expect(seen).toEqual(Array.from({ length: 5100 }, (_, i) => i));
  });
});
