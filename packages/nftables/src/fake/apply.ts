import { canonicalChain } from '../canonical.js';
import { elementContainer } from '../objects/element.js';
import type { Chain, Counter, Element, NftMap, NftObject, NftSet, Rule, Table } from '../objects/types.js';
import type { Operation } from '../operation.js';
import type { Verb } from '../verbs.js';
import { applyRule } from './apply-rule.js';
import { chainReferrers, counterReferrers, setReferrers } from './referrers.js';
import { busy, exists, notFound, notSupported } from './rejection.js';
import { elementChainReferences } from './references.js';
import { elementKey, tableKey, type FakeState, type FakeTable } from './state.js';

/**
 * Applies one operation to the fake's state with the kernel's existence rules, as observed on
 * nft 1.0.6 / Linux 6.x. Throws a `Rejection` when the kernel would refuse it. `destroy` is
 * native here: delete when present, nothing otherwise.
 */
export function applyOperation(state: FakeState, { verb, object }: Operation): void {
  if (object.kind === 'table') return applyTable(state, verb, object);
  const table = state.get(tableKey(object.family, object.table));
  if (table === undefined) {
    if (verb === 'destroy') return;
    throw notFound(`no table ${object.family} ${object.table}`);
  }
  applyInTable(table, verb, object);
}

function applyInTable(table: FakeTable, verb: Verb, object: Exclude<NftObject, Table>): void {
  switch (object.kind) {
    case 'chain':
      return applyChain(table, verb, object);
    case 'rule':
      return applyRule(table, verb, object as Rule);
    case 'set':
    case 'map':
      return applySetLike(table, verb, object);
    case 'element':
      return applyElement(table, verb, object);
    case 'counter':
      return applyCounter(table, verb, object);
  }
}

function applyTable(state: FakeState, verb: Verb, table: Table): void {
  const key = tableKey(table.family, table.name);
  const existing = state.get(key);
  if (existing === undefined) {
    if (verb === 'add' || verb === 'create') {
      state.set(key, { table: { ...table }, chains: new Map(), sets: new Map(), counters: new Map(), nextHandle: 1 });
      return;
    }
    if (verb === 'destroy') return;
    throw notFound(`no table ${table.family} ${table.name}`);
  }
  if (verb === 'create') throw exists(`table ${table.family} ${table.name} exists`);
  if (verb === 'delete' || verb === 'destroy') state.delete(key);
  // flush empties every chain; set and map elements survive (as the kernel does).
  if (verb === 'flush') for (const chain of existing.chains.values()) chain.rules = [];
}

function applyChain(table: FakeTable, verb: Verb, chain: Chain): void {
  const existing = table.chains.get(chain.name);
  if (existing === undefined) {
    if (verb === 'add' || verb === 'create') {
      table.chains.set(chain.name, { chain: canonicalChain(chain), rules: [] });
      table.nextHandle++;
      return;
    }
    if (verb === 'destroy') return;
    throw notFound(`no chain ${chain.name}`);
  }
  switch (verb) {
    case 'create':
      throw exists(`chain ${chain.name} exists`);
    case 'add':
      return updateChain(existing, chain);
    case 'flush':
      existing.rules = [];
      return;
    default: {
      if (existing.rules.length > 0) throw busy(`chain ${chain.name} is not empty`);
      const referrers = chainReferrers(table, chain.name);
      if (referrers.length > 0) throw busy(`chain ${chain.name} is referenced by ${referrers[0]}`);
      table.chains.delete(chain.name);
    }
  }
}

/** Re-adding a chain may change a base chain's policy; anything else must match. */
function updateChain(existing: { chain: Chain }, chain: Chain): void {
  if (chain.hook === undefined) return;
  const current = existing.chain;
  if (current.hook === undefined) throw exists(`chain ${chain.name} exists as a regular chain`);
  const wanted = canonicalChain(chain);
  if (
    wanted.type !== current.type ||
    wanted.hook !== current.hook ||
    wanted.priority !== current.priority ||
    wanted.device !== current.device
  ) {
    throw notSupported(`base chain ${chain.name} cannot change its type, hook, priority or device`);
  }
  if (chain.policy !== undefined) existing.chain = canonicalChain({ ...current, policy: chain.policy });
}

function sameDefinition(a: NftSet | NftMap, b: NftSet | NftMap): boolean {
  const flags = (o: NftSet | NftMap): string => [...(o.flags ?? [])].sort().join(',');
  return a.kind === b.kind && a.type === b.type && a.typeof === b.typeof && flags(a) === flags(b);
}

function applySetLike(table: FakeTable, verb: Verb, object: NftSet | NftMap): void {
  const existing = table.sets.get(object.name);
  const what = `${object.kind} ${object.name}`;
  if (existing === undefined) {
    if (verb === 'add' || verb === 'create') {
      table.sets.set(object.name, { object: { ...object }, elements: new Map() });
      table.nextHandle++;
      return;
    }
    if (verb === 'destroy') return;
    throw notFound(`no ${what}`);
  }
  if (existing.object.kind !== object.kind && verb !== 'add' && verb !== 'create') throw notFound(`no ${what}`);
  switch (verb) {
    case 'create':
      throw exists(`${what} exists`);
    case 'add':
      if (!sameDefinition(existing.object, object)) throw exists(`${what} exists with another definition`);
      return;
    case 'flush':
      existing.elements.clear();
      return;
    default: {
      const referrers = setReferrers(table, object.name);
      if (referrers.length > 0) throw busy(`${what} is referenced by ${referrers[0]}`);
      table.sets.delete(object.name);
    }
  }
}

function applyElement(table: FakeTable, verb: Verb, element: Element): void {
  const name = elementContainer(element);
  const container = table.sets.get(name);
  const kind = element.set !== undefined ? 'set' : 'map';
  if (container === undefined || container.object.kind !== kind) {
    if (verb === 'destroy') return;
    throw notFound(`no ${kind} ${name}`);
  }
  const key = elementKey(element);
  const existing = container.elements.get(key);
  if (verb === 'delete' || verb === 'destroy') {
    if (existing === undefined && verb === 'delete') throw notFound(`no element ${key} in ${kind} ${name}`);
    container.elements.delete(key);
    return;
  }
  if (existing !== undefined) {
    if (verb === 'create') throw exists(`element ${key} exists in ${kind} ${name}`);
    // add of an existing element keeps it (and its comment) unless the value differs.
    if ((existing.value ?? []).join(' . ') !== (element.value ?? []).join(' . '))
      throw exists(`element ${key} of map ${name} has another value`);
    return;
  }
  const missing = elementChainReferences(element).find((chain) => !table.chains.has(chain));
  if (missing !== undefined) throw notFound(`no chain ${missing}`);
  container.elements.set(key, { ...element });
}

function applyCounter(table: FakeTable, verb: Verb, counter: Counter): void {
  const existing = table.counters.get(counter.name);
  if (existing === undefined) {
    if (verb === 'add' || verb === 'create') {
      // The kernel starts a counter at zero unless given values, and lists them either way.
      table.counters.set(counter.name, { packets: 0, bytes: 0, ...counter });
      table.nextHandle++;
      return;
    }
    if (verb === 'destroy') return;
    throw notFound(`no counter ${counter.name}`);
  }
  if (verb === 'create') throw exists(`counter ${counter.name} exists`);
  if (verb === 'reset') table.counters.set(counter.name, { ...existing, packets: 0, bytes: 0 });
  if (verb === 'delete' || verb === 'destroy') {
    const referrers = counterReferrers(table, counter.name);
    if (referrers.length > 0) throw busy(`counter ${counter.name} is referenced by ${referrers[0]}`);
    table.counters.delete(counter.name);
  }
}
