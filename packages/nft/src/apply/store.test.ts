import { describe, expect, it } from 'vitest';
import type { ChainSpec, ElementSpec } from '../render/types.js';
import { FamilyStore, type Delta } from './store.js';
import { TurnBudget } from '@kpng/kit';

const el = (key: string, value?: string): ElementSpec => ({
  container: 'm',
  key: [key],
  ...(value === undefined ? {} : { value: [value] }),
});
const chain = (name: string): ChainSpec => ({ name, rules: ['accept'] });
const show = (d: Delta): Record<string, string[]> => ({
  addChains: d.addChains.map((c) => c.name),
  ...(d.rewriteChains.length === 0
    ? {}
    : { rewriteChains: d.rewriteChains.map((c) => `${c.name}: ${c.rules.join(', ')}`) }),
  deleteChains: d.deleteChains,
  deleteElements: d.deleteElements.map((e) => `${e.key[0]}=${e.value?.[0] ?? ''}`),
  addElements: d.addElements.map((e) => `${e.key[0]}=${e.value?.[0] ?? ''}`),
});

function step(
  store: FamilyStore,
  updates: [string, ElementSpec[] | undefined, ChainSpec[]?][],
): Record<string, string[]> {
  for (const [owner, elements, chains] of updates)
    store.set(owner, elements === undefined ? undefined : { elements, chains: chains ?? [] });
  const delta = store.delta();
  store.commit();
  return show(delta);
}

describe('FamilyStore', () => {
  it('emits only what changed, and nothing for a no-op update', () => {
    const store = new FamilyStore();
    expect(step(store, [['s1', [el('a', '1'), el('b', '2')], [chain('pick-tcp-2')]]])).toEqual({
      addChains: ['pick-tcp-2'],
      deleteChains: [],
      deleteElements: [],
      addElements: ['a=1', 'b=2'],
    });
    expect(step(store, [['s1', [el('a', '1'), el('b', '2')], [chain('pick-tcp-2')]]])).toEqual({
      addChains: [],
      deleteChains: [],
      deleteElements: [],
      addElements: [],
    });
    expect(step(store, [['s1', [el('a', '1'), el('b', '3')], [chain('pick-tcp-2')]]])).toEqual({
      addChains: [],
      deleteChains: [],
      deleteElements: ['b=2'],
      addElements: ['b=3'],
    });
  });

  it('keeps a shared element and chain until the last owner goes', () => {
    const store = new FamilyStore();
    step(store, [
      ['s1', [el('h')], [chain('pick-tcp-1')]],
      ['s2', [el('h')], [chain('pick-tcp-1')]],
    ]);
    expect(step(store, [['s1', undefined]])).toEqual({
      addChains: [],
      deleteChains: [],
      deleteElements: [],
      addElements: [],
    });
    expect(step(store, [['s2', undefined]])).toEqual({
      addChains: [],
      deleteChains: ['pick-tcp-1'],
      deleteElements: ['h='],
      addElements: [],
    });
    expect(store.elementCount).toBe(0);
    expect(store.appliedChains()).toEqual([]);
  });

  it('resolves a contested key to the smallest owner, whatever the order', () => {
    const store = new FamilyStore();
    step(store, [['ns/b', [el('vip', 'goto x')]]]);
    expect(step(store, [['ns/a', [el('vip', 'goto y')]]])).toEqual({
      addChains: [],
      deleteChains: [],
      deleteElements: ['vip=goto x'],
      addElements: ['vip=goto y'],
    });
    expect(step(store, [['ns/a', undefined]])).toEqual({
      addChains: [],
      deleteChains: [],
      deleteElements: ['vip=goto y'],
      addElements: ['vip=goto x'],
    });
  });

  it('deletes entry chains before the sticky lookups and picks they use', () => {
    const store = new FamilyStore();
    const chains = [
      chain('pick-tcp-1'),
      chain('affinity-3-record'),
      chain('affinity-3-external'),
      chain('local-affinity-3-external.drop'),
    ];
    step(store, [['s', [], chains]]);
    expect(step(store, [['s', undefined]]).deleteChains).toEqual([
      'local-affinity-3-external.drop',
      'affinity-3-external',
      'affinity-3-record',
      'pick-tcp-1',
    ]);
  });

  it('rewrites a chain whose rules changed under the same name, once', () => {
    const store = new FamilyStore();
    const lookups = (...rules: string[]): ChainSpec => ({ name: 'affinity-1-internal', rules });
    step(store, [['s', [], [lookups('a', 'goto pick-tcp-1')]]]);
    expect(step(store, [['s', [], [lookups('a', 'b', 'goto pick-tcp-2')]]])).toEqual({
      addChains: [],
      rewriteChains: ['affinity-1-internal: a, b, goto pick-tcp-2'],
      deleteChains: [],
      deleteElements: [],
      addElements: [],
    });
    expect(step(store, [['s', [], [lookups('a', 'b', 'goto pick-tcp-2')]]])).toEqual({
      addChains: [],
      deleteChains: [],
      deleteElements: [],
      addElements: [],
    });
  });

  it.each([
    ['at once', undefined],
    ['giving the event loop a turn after every entry', new TurnBudget(0)],
  ])('wanted() lists what the owners want, after commitAll everything is applied (%s)', async (_how, budget) => {
    const store = new FamilyStore();
    store.set('s1', { elements: [el('a', '1')], chains: [chain('c')] });
    store.set('s2', { elements: [el('a', '2'), el('b')], chains: [] });
    for (let i = 0; i < 40; i++) store.set(`t${i}`, { elements: [el(`t${i}`)], chains: [] });
    await store.commitAll(budget);
    if (budget !== undefined) expect(budget.yields).toBeGreaterThan(0);
    expect(
      store
        .wanted()
        .elements.map((e) => `${e.key[0]}=${e.value?.[0] ?? ''}`)
        .filter((e) => !e.startsWith('t'))
        .sort(),
    ).toEqual(['a=1', 'b=']);
    expect(store.appliedChains()).toEqual(['c']);
    expect(show(store.delta())).toEqual({ addChains: [], deleteChains: [], deleteElements: [], addElements: [] });
  });
});
