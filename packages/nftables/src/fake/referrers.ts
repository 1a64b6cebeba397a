import { elementChainReferences, ruleReferences, type References } from './references.js';
import type { FakeTable } from './state.js';

/** Descriptions of the rules (and verdict map elements) that refer to a name, to refuse deleting it. */
function ruleReferrers(table: FakeTable, refers: (references: References) => boolean): string[] {
  const found: string[] = [];
  for (const { chain, rules } of table.chains.values()) {
    for (const rule of rules) if (refers(ruleReferences(rule))) found.push(`a rule in chain ${chain.name}`);
  }
  return found;
}

export function chainReferrers(table: FakeTable, name: string): string[] {
  const found = ruleReferrers(table, (references) => references.chains.includes(name));
  for (const { object, elements } of table.sets.values()) {
    for (const element of elements.values()) {
      if (elementChainReferences(element).includes(name)) found.push(`an element of map ${object.name}`);
    }
  }
  return found;
}

export function setReferrers(table: FakeTable, name: string): string[] {
  return ruleReferrers(table, (references) => references.setsOrMaps.includes(name));
}

export function counterReferrers(table: FakeTable, name: string): string[] {
  return ruleReferrers(table, (references) => references.counters.includes(name));
}
