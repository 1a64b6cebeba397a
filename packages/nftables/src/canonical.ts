import { DEFAULT_RENDER_CONTEXT } from './objects/codec.js';
import { elementContainer } from './objects/element.js';
import { renderObject } from './objects/index.js';
import { priorityValue } from './objects/priority.js';
import type { Chain, NftObject, Rule } from './objects/types.js';

/**
 * One spelling per meaning, shared by the fake and by listings of the real nft so the two can be
 * compared: priorities as numbers, and no `policy accept` (the default nft always prints).
 */
export function canonicalChain(chain: Chain): Chain {
  const { policy, priority, ...rest } = chain;
  const value = priority === undefined ? undefined : (priorityValue(priority) ?? priority);
  return {
    ...rest,
    ...(value === undefined ? {} : { priority: value }),
    ...(policy === undefined || policy === 'accept' ? {} : { policy }),
  };
}

const KIND_ORDER: readonly NftObject['kind'][] = ['table', 'chain', 'set', 'map', 'counter', 'element', 'rule'];

function sortKey(object: NftObject): string {
  switch (object.kind) {
    case 'table':
      return `${object.family} ${object.name}`;
    case 'element':
      return `${object.family} ${object.table} ${elementContainer(object)} ${object.key.join(' . ')}`;
    case 'rule':
      return `${object.family} ${object.table} ${object.chain}`;
    default:
      return `${object.family} ${object.table} ${object.name}`;
  }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Dump order, which is also a valid order to apply: tables, then per table its chains, sets,
 * maps and counters (by name), then elements (by container and key), then rules grouped by
 * chain, keeping their order within the chain (it is meaningful).
 */
export function sortForDump(objects: readonly NftObject[]): NftObject[] {
  const keyed = objects.map((object, position) => ({
    object,
    position,
    table: object.kind === 'table' ? `${object.family} ${object.name}` : `${object.family} ${object.table}`,
    kind: KIND_ORDER.indexOf(object.kind),
    key: sortKey(object),
  }));
  keyed.sort(
    (a, b) => compare(a.table, b.table) || a.kind - b.kind || compare(a.key, b.key) || a.position - b.position,
  );
  return keyed.map(({ object }) => object);
}

/** Rules without their handle or position: what a golden file should compare. */
export function withoutRulePosition(rule: Rule): Rule {
  const { handle: _handle, index: _index, ...rest } = rule;
  return rest;
}

/** Deterministic `add …` lines for golden files; `parseDump` reads them back. */
export function dumpObjects(objects: readonly NftObject[]): string {
  const lines = sortForDump(objects).map((object) =>
    renderObject(object.kind === 'rule' ? withoutRulePosition(object) : object, 'add', DEFAULT_RENDER_CONTEXT),
  );
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
