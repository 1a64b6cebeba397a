import { describe, expect, it } from 'vitest';
import type { ServiceKey } from '../model/types.js';
import type { StateChanges } from '../nodeview/types.js';
import { ErrorCodes } from '../util/errors.js';
import type { StateConsumer } from '../runtime/node-view.js';
import { StateHub } from './hub.js';

const key = (s: string) => s as ServiceKey;
function changed(...services: string[]): StateChanges {
  return { updatedServices: new Set(services.map(key)), triggerTimes: new Map(), nodeChanged: false };
}
const everything: StateChanges = { triggerTimes: new Map(), nodeChanged: true };

describe('StateHub', () => {
  it('waits for the first state, then hands it out as full', async () => {
    const hub = new StateHub<string>({ instanceId: 'i1' });
    const pending = hub.next(undefined);
    hub.publish('s1', changed('a/x'));
    const d = await pending;
    expect(d).toMatchObject({ state: 's1', instanceId: 'i1', revision: 1, full: true });
    expect(d.changes.updatedServices).toBeUndefined();
  });

  it('resolves at once when a newer revision exists and waits when the client is current', async () => {
    const hub = new StateHub<string>({ instanceId: 'i1' });
    hub.publish('s1', everything);
    hub.publish('s2', changed('a/x'));
    const d = await hub.next({ instanceId: 'i1', revision: 1 });
    expect(d).toMatchObject({ state: 's2', revision: 2, full: false });
    expect([...d.changes.updatedServices!]).toEqual(['a/x']);

    let resolved = false;
    const pending = hub.next({ instanceId: 'i1', revision: 2 }).then((x) => ((resolved = true), x));
    await Promise.resolve();
    expect(resolved).toBe(false);
    expect(hub.waiting).toBe(1);
    hub.publish('s3', changed('a/y'));
    expect((await pending).revision).toBe(3);
  });

  it('skips intermediate revisions and reports the union of their changes', async () => {
    const hub = new StateHub<string>({ instanceId: 'i1' });
    hub.publish('s1', everything);
    hub.publish('s2', { ...changed('a/x'), triggerTimes: new Map([[key('a/x'), [10]]]) });
    hub.publish('s3', { ...changed('a/y'), nodeChanged: true });
    hub.publish('s4', { ...changed('a/x', 'a/z'), triggerTimes: new Map([[key('a/x'), [20]]]) });
    const d = await hub.next({ instanceId: 'i1', revision: 1 });
    expect(d).toMatchObject({ state: 's4', revision: 4, full: false });
    expect([...d.changes.updatedServices!].sort()).toEqual(['a/x', 'a/y', 'a/z']);
    expect(d.changes.triggerTimes.get(key('a/x'))).toEqual([10, 20]);
    expect(d.changes.nodeChanged).toBe(true);
  });

  it('a full change inside the skipped range makes the delivery full', async () => {
    const hub = new StateHub<string>({ instanceId: 'i1' });
    hub.publish('s1', everything);
    hub.publish('s2', changed('a/x'));
    hub.publish('s3', everything);
    const d = await hub.next({ instanceId: 'i1', revision: 1 });
    expect(d.full).toBe(true);
    expect(d.changes.updatedServices).toBeUndefined();
  });

  it('a token older than the history gets a full state, keeping retained trigger times', async () => {
    const hub = new StateHub<string>({ instanceId: 'i1', historySize: 2 });
    hub.publish('s1', everything);
    hub.publish('s2', changed('a/x'));
    hub.publish('s3', { ...changed('a/y'), triggerTimes: new Map([[key('a/y'), [7]]]) });
    hub.publish('s4', changed('a/z'));
    const tooOld = await hub.next({ instanceId: 'i1', revision: 1 });
    expect(tooOld).toMatchObject({ revision: 4, full: true });
    expect(tooOld.changes.updatedServices).toBeUndefined();
    expect(tooOld.changes.triggerTimes.get(key('a/y'))).toEqual([7]);
    const justKnown = await hub.next({ instanceId: 'i1', revision: 2 });
    expect(justKnown.full).toBe(false);
    expect([...justKnown.changes.updatedServices!].sort()).toEqual(['a/y', 'a/z']);
  });

  it('another instance, or a revision from the future, starts the client over', async () => {
    const hub = new StateHub<string>({ instanceId: 'i2' });
    hub.publish('s1', everything);
    hub.publish('s2', changed('a/x'));
    expect(await hub.next({ instanceId: 'i1', revision: 1 })).toMatchObject({
      revision: 2,
      full: true,
      instanceId: 'i2',
    });
    expect(await hub.next({ instanceId: 'i2', revision: 9 })).toMatchObject({ revision: 2, full: true });
  });

  it('plugs into the core as a state consumer', () => {
    const hub = new StateHub<string>();
    const consumer: StateConsumer<string> = hub;
    hub.publish('s1', everything, 7);
    expect(consumer).toBe(hub);
    expect(hub.revision).toBe(7);
  });

  it('gives each hub a random instance id', () => {
    expect(new StateHub().instanceId).not.toBe(new StateHub().instanceId);
  });

  it('uses caller revisions, bumping any that would not increase', () => {
    const hub = new StateHub<string>();
    expect(hub.publish('s', everything, 10)).toBe(10);
    expect(hub.publish('s', everything, 10)).toBe(11);
    expect(hub.publish('s', everything)).toBe(12);
    expect(hub.publish('s', everything, 40)).toBe(40);
    expect(() => hub.publish('s', everything, 1.5)).toThrow(/not an integer/);
  });

  it('rejects a waiting next on abort, and on close with StreamClosed', async () => {
    const hub = new StateHub<string>();
    const ac = new AbortController();
    const aborted = hub.next(undefined, ac.signal);
    ac.abort(new Error('bye'));
    await expect(aborted).rejects.toThrow('bye');

    const closed = hub.next(undefined);
    hub.close();
    await expect(closed).rejects.toMatchObject({ code: ErrorCodes.StreamClosed });
    expect(() => hub.publish('s', everything)).toThrow();
  });
});
