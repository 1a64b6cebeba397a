import { describe, expect, it } from 'vitest';
import { type ModelEvent, type NodeName } from '../../model/types.js';
import { EventBatcher } from './event-batcher.js';

const del = (name: string): ModelEvent => ({ kind: 'Node', op: 'delete', key: name as NodeName });
const conv = (name: string) => () => del(name);

function manualScheduler() {
  const queued: Array<() => void> = [];
  return {
    schedule: (fn: () => void) => void queued.push(fn),
    run: () => queued.splice(0).forEach((fn) => fn()),
    queued,
  };
}

/** A clock that advances by `step` ms at every reading: conversions "take" time. */
function tickingClock(step: number) {
  let t = 0;
  return () => (t += step);
}

describe('EventBatcher', () => {
  it('converts and delivers events pushed in one turn as one ordered batch, in a later turn', () => {
    const batches: (readonly ModelEvent[])[] = [];
    const turn = manualScheduler();
    const batcher = new EventBatcher((b) => batches.push(b), { schedule: turn.schedule });
    let converted = 0;
    batcher.push(() => (converted++, del('a')));
    batcher.push(conv('b'));
    batcher.push(() => undefined); // an ignored object
    expect(turn.queued).toHaveLength(1);
    expect([batches, converted]).toEqual([[], 0]);
    turn.run();
    batcher.push(conv('c'));
    turn.run();
    expect(batches).toEqual([[del('a'), del('b')], [del('c')]]);
  });

  it('spreads a big list over many turns, within the budget, yielding between them, in order', () => {
    const batches: (readonly ModelEvent[])[] = [];
    const turn = manualScheduler();
    // Each clock reading (one per 32 conversions) advances 1 ms: a 10 ms budget is ~320 conversions.
    const batcher = new EventBatcher((b) => batches.push(b), {
      schedule: turn.schedule,
      budgetMs: 10,
      now: tickingClock(1),
    });
    const names = Array.from({ length: 10_000 }, (_, i) => `n${i}`);
    for (const name of names) batcher.push(conv(name));
    let synced = false;
    batcher.afterPending(() => (synced = true));
    let turns = 0;
    while (turn.queued.length > 0) {
      turn.run();
      turns++;
      if (turns === 1) expect(batcher.pending).toBeGreaterThan(0);
    }
    expect(turns).toBeGreaterThan(20);
    // Each turn's conversions use its budget: their batch is delivered at the start of the next
    // (none in the first turn, two in the last: the held batch and the rest).
    expect(batches.length).toBe(turns);
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThan(1000);
    expect(batches.flat()).toEqual(names.map(del));
    expect(synced).toBe(true);
  });

  it('runs an afterPending callback once everything before it was delivered, and before what follows', () => {
    const log: string[] = [];
    const turn = manualScheduler();
    const batcher = new EventBatcher((b) => log.push(`batch ${b.map((e) => e.key).join(',')}`), {
      schedule: turn.schedule,
    });
    batcher.push(conv('a'));
    batcher.afterPending(() => log.push('synced'));
    batcher.push(conv('b'));
    turn.run();
    expect(log).toEqual(['batch a', 'synced', 'batch b']);
  });

  it('delivers the batch of conversions that used the whole budget in the next turn, and converts no more there when the delivery used it', () => {
    const log: string[] = [];
    const turn = manualScheduler();
    let now = 0;
    const batcher = new EventBatcher(
      (b) => {
        log.push(`batch ${b.map((e) => e.key).join(',')}`);
        if (b.some((e) => e.key === 'huge')) now += 15; // the model and node view of a huge object
      },
      { schedule: turn.schedule, budgetMs: 10, now: () => now },
    );
    batcher.push(() => ((now += 25), del('huge'))); // one conversion over the whole budget
    batcher.afterPending(() => log.push('synced'));
    batcher.push(conv('next'));
    turn.run();
    expect(log).toEqual([]);
    turn.run();
    expect(log).toEqual(['batch huge']);
    turn.run();
    expect(log).toEqual(['batch huge', 'synced', 'batch next']);
    expect(turn.queued).toEqual([]);
  });

  it('discards pending conversions', () => {
    const batches: (readonly ModelEvent[])[] = [];
    const turn = manualScheduler();
    const batcher = new EventBatcher((b) => batches.push(b), { schedule: turn.schedule });
    batcher.push(conv('a'));
    batcher.discard();
    turn.run();
    expect([batches, batcher.pending]).toEqual([[], 0]);
    // Also a batch converted and held for the next turn.
    let now = 0;
    const held = new EventBatcher((b) => batches.push(b), { schedule: turn.schedule, budgetMs: 10, now: () => now });
    held.push(() => ((now += 25), del('b')));
    turn.run();
    held.discard();
    turn.run();
    expect(batches).toEqual([]);
  });

  it('batches by default until the next event-loop turn', async () => {
    const batches: (readonly ModelEvent[])[] = [];
    const batcher = new EventBatcher((b) => batches.push(b));
    batcher.push(conv('a'));
    await Promise.resolve();
    batcher.push(conv('b'));
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([[del('a'), del('b')]]);
  });
});
