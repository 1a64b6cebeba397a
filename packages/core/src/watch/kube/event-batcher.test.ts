import { describe, expect, it } from 'vitest';
import { type ModelEvent, type NodeName } from '../../model/types.js';
import { EventBatcher } from './event-batcher.js';

const del = (name: string): ModelEvent => ({ kind: 'Node', op: 'delete', key: name as NodeName });

function manualScheduler() {
  const queued: Array<() => void> = [];
  return { schedule: (fn: () => void) => void queued.push(fn), run: () => queued.splice(0).forEach((fn) => fn()), queued };
}

describe('EventBatcher', () => {
  it('delivers events pushed in one turn as one ordered batch', () => {
    const batches: (readonly ModelEvent[])[] = [];
    const turn = manualScheduler();
    const batcher = new EventBatcher((b) => batches.push(b), turn.schedule);
    batcher.push(del('a'));
    batcher.push(del('b'));
    expect(turn.queued).toHaveLength(1);
    expect(batches).toEqual([]);
    turn.run();
    batcher.push(del('c'));
    turn.run();
    expect(batches).toEqual([[del('a'), del('b')], [del('c')]]);
  });

  it('flushes on demand and then has nothing left for the scheduled turn', () => {
    const batches: (readonly ModelEvent[])[] = [];
    const turn = manualScheduler();
    const batcher = new EventBatcher((b) => batches.push(b), turn.schedule);
    batcher.push(del('a'));
    batcher.flush();
    turn.run();
    expect(batches).toEqual([[del('a')]]);
  });

  it('discards pending events', () => {
    const batches: (readonly ModelEvent[])[] = [];
    const turn = manualScheduler();
    const batcher = new EventBatcher((b) => batches.push(b), turn.schedule);
    batcher.push(del('a'));
    batcher.discard();
    turn.run();
    expect(batches).toEqual([]);
  });

  it('batches by default until the next event-loop turn', async () => {
    const batches: (readonly ModelEvent[])[] = [];
    const batcher = new EventBatcher((b) => batches.push(b));
    batcher.push(del('a'));
    await Promise.resolve();
    batcher.push(del('b'));
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([[del('a'), del('b')]]);
  });
});
