import { describe, expect, it } from 'vitest';
import type { ServiceKey } from '../model/types.js';
import { PendingChanges } from '../sync/pending-changes.js';
import { addTriggerTimes, appendTriggerTimes, MAX_TRIGGER_TIMES } from './trigger-times.js';

describe('trigger-time lists', () => {
  it('keep the oldest times and, last, the newest, up to the bound', () => {
    const list: number[] = [];
    appendTriggerTimes(
      list,
      Array.from({ length: 1000 }, (_, i) => i),
    );
    expect(list).toHaveLength(MAX_TRIGGER_TIMES);
    expect(list.slice(0, MAX_TRIGGER_TIMES - 1)).toEqual(Array.from({ length: MAX_TRIGGER_TIMES - 1 }, (_, i) => i));
    expect(list.at(-1)).toBe(999);
    appendTriggerTimes(list, [5]); // older than the newest kept: nothing changes
    expect(list.at(-1)).toBe(999);
  });

  it('take a list of any length without spreading it (200,000 times in one call)', () => {
    const map = new Map<string, number[]>();
    addTriggerTimes(map, 'a', new Array<number>(200_000).fill(1));
    expect(map.get('a')).toHaveLength(MAX_TRIGGER_TIMES);
  });

  it('stay bounded while syncs keep failing (the changes of each failed sync are added back)', () => {
    const pending = new PendingChanges();
    const svc = 'ns/a' as ServiceKey;
    for (let failure = 0; failure < 500; failure++) {
      pending.add({ updatedServices: new Set([svc]), triggerTimes: new Map([[svc, [failure]]]), nodeChanged: false });
      pending.restore(pending.take()); // what SyncLoop does when a sync fails
    }
    expect(pending.take().triggerTimes.get(svc)).toHaveLength(MAX_TRIGGER_TIMES);
  });
});
