/** Rendered specs -> the nftables library's objects, for one family's table. */
import type { Chain, Element, NftMap, NftSet, Rule, Table } from '@kpng/nftables';
import type { FamilySyntax } from '../render/family.js';
import type { ChainSpec, ElementSpec, EndpointListSpec, SetSpec } from '../render/types.js';

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

/** Called for every element of a full sync: built directly, without spreads. */
export function elementObject(ref: TableRef, spec: ElementSpec): Element {
  const family = ref.syntax.nft;
  const { table } = ref;
  const isMap = ref.maps.has(spec.container);
  if (spec.value === undefined && spec.comment === undefined) {
    return isMap
      ? { kind: 'element', family, table, map: spec.container, key: spec.key }
      : { kind: 'element', family, table, set: spec.container, key: spec.key };
  }
  const element: { -readonly [K in keyof Element]: Element[K] } = { kind: 'element', family, table, key: spec.key };
  if (isMap) element.map = spec.container;
  else element.set = spec.container;
  if (spec.value !== undefined) element.value = spec.value;
  if (spec.comment !== undefined) element.comment = spec.comment;
  return element;
}

/** A list's slots as map elements, built directly (most elements of a full sync are these). */
export function listElementObjects(ref: TableRef, list: EndpointListSpec): Element[] {
  return [...listElements(ref, list)];
}

/** `listElementObjects`, made one at a time (a full sync streams them). */
export function* listElements(ref: TableRef, list: EndpointListSpec): Generator<Element, void, void> {
  const family = ref.syntax.nft;
  const { table } = ref;
  const port = String(list.port);
  for (let i = 0; i < list.endpoints.length; i++) {
    const ep = list.endpoints[i] as EndpointListSpec['endpoints'][number];
    yield {
      kind: 'element',
      family,
      table,
      map: list.container,
      key: [list.address, port, String(list.offset + i)],
      value: [ep.ip, String(ep.port)],
    };
  }
}
