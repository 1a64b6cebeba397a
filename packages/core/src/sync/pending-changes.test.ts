import { describe, expect, it } from 'vitest';
import { serviceKey, type ServiceKey } from '../model/types.js';
import type { StateChanges } from '../nodeview/types.js';
import { PendingChanges } from './pending-changes.js';

const a = serviceKey('ns', 'a');
const b = serviceKey('ns', 'b');

function changes(
  updated: ServiceKey[] | 'all',
  times: Array<[ServiceKey, number[]]> = [],
  nodeChanged = false,
): StateChanges {
  return {
    ...(updated === 'all' ? {} : { updatedServices: new Set(updated) }),
    triggerTimes: new Map(times),
    nodeChanged,
  };
}

function summary(c: StateChanges) {
  return {
    updated: c.updatedServices ? [...c.updatedServices].sort() : 'all',
    times: Object.fromEntries(c.triggerTimes),
    nodeChanged: c.nodeChanged,
  };
}

describe('PendingChanges', () => {
  it.each([
    { name: 'nothing', offers: [], expected: { updated: [], times: {}, nodeChanged: false } },
    {
      name: 'a union of updated services',
      offers: [changes([a]), changes([b]), changes([a])],
      expected: { updated: [a, b], times: {}, nodeChanged: false },
    },
    {
      name: '"all" absorbing later sets',
      offers: [changes([a]), changes('all'), changes([b])],
      expected: { updated: 'all', times: {}, nodeChanged: false },
    },
    {
      name: 'trigger times concatenated per service',
      offers: [
        changes([a], [[a, [1, 2]]]),
        changes(
          [a, b],
          [
            [a, [3]],
            [b, [4]],
          ],
        ),
      ],
      expected: { updated: [a, b], times: { [a]: [1, 2, 3], [b]: [4] }, nodeChanged: false },
    },
    {
      name: 'nodeChanged OR-ed',
      offers: [changes([], [], true), changes([])],
      expected: { updated: [], times: {}, nodeChanged: true },
    },
  ])('accumulates $name', ({ offers, expected }) => {
    const pending = new PendingChanges();
    for (const c of offers) pending.add(c);
    expect(summary(pending.take())).toEqual(expected);
  });

  it('starts afresh after take, without aliasing what was taken', () => {
    const pending = new PendingChanges();
    pending.add(changes([a], [[a, [1]]], true));
    const taken = pending.take();
    pending.add(changes([b], [[a, [2]]]));
    expect(summary(taken)).toEqual({ updated: [a], times: { [a]: [1] }, nodeChanged: true });
    expect(summary(pending.take())).toEqual({ updated: [b], times: { [a]: [2] }, nodeChanged: false });
  });

  it('does not alias the offered trigger-time arrays', () => {
    const offered = [1];
    const pending = new PendingChanges();
    pending.add(changes([a], [[a, offered]]));
    pending.add(changes([a], [[a, [2]]]));
    expect(offered).toEqual([1]);
  });

  it('restore puts failed changes back ahead of newer ones', () => {
    const pending = new PendingChanges();
    pending.add(changes([a], [[a, [1]]]));
    const failed = pending.take();
    pending.add(changes([b], [[a, [5]]], true));
    pending.restore(failed);
    expect(summary(pending.take())).toEqual({ updated: [a, b], times: { [a]: [1, 5] }, nodeChanged: true });
  });
});
