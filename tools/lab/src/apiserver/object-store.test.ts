import { describe, expect, it } from 'vitest';
import { ObjectStore, StoreError, type StoredChange } from './object-store.js';

const svc = (name: string, port = 80) => ({
  kind: 'Service',
  metadata: { name, namespace: 'ns' },
  spec: { ports: [{ port }] },
});

describe('ObjectStore', () => {
  it('stamps objects and bumps one global resourceVersion across kinds', () => {
    const store = new ObjectStore();
    const a = store.create(svc('a'));
    const n = store.create({ kind: 'Node', metadata: { name: 'n1', namespace: 'ignored' } });
    expect(a.metadata).toMatchObject({ resourceVersion: '1', namespace: 'ns' });
    expect(a.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(a.metadata.creationTimestamp)).not.toBeNaN();
    expect(a.apiVersion).toBe('v1');
    expect(n.metadata.resourceVersion).toBe('2');
    expect(n.metadata.namespace).toBeUndefined();
    expect(store.resourceVersion).toBe(2);
  });

  it('keeps uid and creationTimestamp on update, and ignores updates that change nothing', () => {
    const store = new ObjectStore();
    const created = store.create(svc('a'));
    const same = store.update(svc('a'));
    expect(same.metadata.resourceVersion).toBe('1');
    const changed = store.update(svc('a', 81));
    expect(changed.metadata).toMatchObject({
      resourceVersion: '2',
      uid: created.metadata.uid,
      creationTimestamp: created.metadata.creationTimestamp,
    });
  });

  it('records deletions with a new resourceVersion and the previous state', () => {
    const store = new ObjectStore();
    const seen: StoredChange[] = [];
    store.subscribe((c) => seen.push(c));
    store.create(svc('a'));
    const tombstone = store.delete({ kind: 'Service', metadata: { name: 'a', namespace: 'ns' } });
    expect(tombstone.metadata.resourceVersion).toBe('2');
    expect(seen.map((c) => [c.type, c.rv, c.previous?.metadata.resourceVersion])).toEqual([
      ['ADDED', 1, undefined],
      ['DELETED', 2, '1'],
    ]);
    expect(store.list(seen[0]!.resource)).toEqual([]);
  });

  it.each([
    ['create twice', (s: ObjectStore) => (s.create(svc('a')), s.create(svc('a')))],
    ['update missing', (s: ObjectStore) => s.update(svc('a'))],
    ['delete missing', (s: ObjectStore) => s.delete(svc('a'))],
    ['unknown kind', (s: ObjectStore) => s.create({ kind: 'ConfigMap', metadata: { name: 'p' } })],
  ])('refuses to %s', (_name, act) => {
    expect(() => act(new ObjectStore())).toThrow(StoreError);
  });

  it('serves changes since a resourceVersion until compaction expires it', () => {
    const store = new ObjectStore();
    store.create(svc('a'));
    store.create(svc('b'));
    expect(store.changesSince(1)).toHaveLength(1);
    store.compact();
    expect(store.changesSince(1)).toBe('expired');
    expect(store.changesSince(2)).toEqual([]);
    store.create(svc('c'));
    expect(store.changesSince(2)).toHaveLength(1);
  });

  it('forgets the oldest changes beyond its history limit', () => {
    const store = new ObjectStore(2);
    for (const name of ['a', 'b', 'c', 'd']) store.create(svc(name));
    expect(store.changesSince(1)).toBe('expired');
    expect(store.changesSince(2)).toHaveLength(2);
  });
});
