/** Rendered specs -> the nftables library's objects, for one family's table. */
import type { Chain, Element, NftMap, NftSet, Rule, Table } from '../nftables/index.js';
import type { FamilySyntax } from '../render/family.js';
import type { ChainSpec, ElementSpec, SetSpec } from '../render/types.js';

export interface TableRef {
  readonly syntax: FamilySyntax;
  readonly table: string;
  /** Which containers are maps (everything else is a set). */
  readonly maps: ReadonlySet<string>;
}

export function tableObject(ref: TableRef): Table {
  return { kind: 'table', family: ref.syntax.nft, name: ref.table, comment: 'rules for kpng' };
}

export function chainObject(ref: TableRef, spec: ChainSpec): Chain {
  const chain: Chain = { kind: 'chain', family: ref.syntax.nft, table: ref.table, name: spec.name };
  if (spec.base === undefined) return chain;
  return { ...chain, type: spec.base.type, hook: spec.base.hook, priority: spec.base.priority, policy: 'accept' };
}

/** A chain by name only (flush, delete). */
export function chainRef(ref: TableRef, name: string): Chain {
  return { kind: 'chain', family: ref.syntax.nft, table: ref.table, name };
}

export function ruleObjects(ref: TableRef, spec: ChainSpec): Rule[] {
  return spec.rules.map((rule) => ({ kind: 'rule', family: ref.syntax.nft, table: ref.table, chain: spec.name, rule }));
}

export function setObject(ref: TableRef, spec: SetSpec): NftSet | NftMap {
  const common = {
    family: ref.syntax.nft,
    table: ref.table,
    name: spec.name,
    ...(spec.type === undefined ? {} : { type: spec.type }),
    ...(spec.typeof === undefined ? {} : { typeof: spec.typeof }),
    ...(spec.flags === undefined ? {} : { flags: spec.flags }),
    ...(spec.size === undefined ? {} : { size: spec.size }),
    comment: spec.comment,
  };
  return spec.kind === 'map' ? { kind: 'map', ...common } : { kind: 'set', ...common };
}

export function elementObject(ref: TableRef, spec: ElementSpec): Element {
  const container = ref.maps.has(spec.container) ? { map: spec.container } : { set: spec.container };
  return {
    kind: 'element',
    family: ref.syntax.nft,
    table: ref.table,
    ...container,
    key: spec.key,
    ...(spec.value === undefined ? {} : { value: spec.value }),
    ...(spec.comment === undefined ? {} : { comment: spec.comment }),
  };
}
