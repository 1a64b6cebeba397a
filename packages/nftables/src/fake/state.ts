import type { Chain, Counter, Element, Family, NftMap, NftSet, Rule, Table } from '../objects/types.js';

/** The fake's model of one table. Objects are immutable; containers are copied per transaction. */
export interface FakeTable {
  table: Table;
  readonly chains: Map<string, FakeChain>;
  /** Sets and maps share one namespace in the kernel, so they share one map here. */
  readonly sets: Map<string, FakeSetLike>;
  readonly counters: Map<string, Counter>;
  nextHandle: number;
}

export interface FakeChain {
  chain: Chain;
  rules: Rule[];
}

export interface FakeSetLike {
  object: NftSet | NftMap;
  /** Keyed by the key's text (`198.19.0.1 . tcp . 80`), in insertion order. */
  readonly elements: Map<string, Element>;
}

export type FakeState = Map<string, FakeTable>;

export function tableKey(family: Family, name: string): string {
  return `${family} ${name}`;
}

export function elementKey(element: Pick<Element, 'key'>): string {
  return element.key.join(' . ');
}

export function cloneState(state: FakeState): FakeState {
  const copy: FakeState = new Map();
  for (const [key, table] of state) {
    copy.set(key, {
      table: table.table,
      chains: new Map([...table.chains].map(([name, c]) => [name, { chain: c.chain, rules: [...c.rules] }])),
      sets: new Map([...table.sets].map(([name, s]) => [name, { object: s.object, elements: new Map(s.elements) }])),
      counters: new Map(table.counters),
      nextHandle: table.nextHandle,
    });
  }
  return copy;
}
