/**
 * The nftables objects a transaction can carry: plain readonly data tagged by `kind`.
 * Every object names its own family and table, so one transaction may touch several tables
 * (kpng programs `ip` and `ip6` tables side by side).
 */

/** Address families kpng programs. `inet` covers both IPv4 and IPv6 in one table. */
export type Family = 'ip' | 'ip6' | 'inet';
export const FAMILIES: readonly Family[] = ['ip', 'ip6', 'inet'];

export type ChainType = 'filter' | 'nat' | 'route';
export type ChainHook = 'prerouting' | 'input' | 'forward' | 'output' | 'postrouting' | 'ingress' | 'egress';
export type ChainPolicy = 'accept' | 'drop';
/**
 * A number, or a standard priority name with an optional offset (`dstnat`, `dstnat-10`,
 * `filter + 5`). Rendered as a number: nft 1.0.x refuses some names on some hooks.
 */
export type ChainPriority = number | string;

export type SetFlag = 'constant' | 'dynamic' | 'interval' | 'timeout';
export type SetPolicy = 'performance' | 'memory';

interface InTable {
  readonly family: Family;
  readonly table: string;
}

export interface Table {
  readonly kind: 'table';
  readonly family: Family;
  readonly name: string;
  readonly comment?: string;
}

/** A regular chain has no `type`/`hook`/`priority`; a base chain has all three. */
export interface Chain extends InTable {
  readonly kind: 'chain';
  readonly name: string;
  readonly type?: ChainType;
  readonly hook?: ChainHook;
  readonly priority?: ChainPriority;
  readonly policy?: ChainPolicy;
  /** Only for `ingress`/`egress` hooks. */
  readonly device?: string;
  readonly comment?: string;
}

/**
 * A rule is nft text (no rule AST, as in knftables). `index` positions an add/insert relative to
 * the index-th rule; `handle` addresses an existing rule (replace, delete) or positions relative
 * to it.
 */
export interface Rule extends InTable {
  readonly kind: 'rule';
  readonly chain: string;
  readonly rule: string;
  readonly comment?: string;
  readonly index?: number;
  readonly handle?: number;
}

interface SetProperties extends InTable {
  readonly name: string;
  /** Exactly one of `type` and `typeof`. */
  readonly type?: string;
  readonly typeof?: string;
  readonly flags?: readonly SetFlag[];
  /** Seconds. */
  readonly timeout?: number;
  /** Seconds. */
  readonly gcInterval?: number;
  readonly size?: number;
  readonly policy?: SetPolicy;
  readonly comment?: string;
}

export interface NftSet extends SetProperties {
  readonly kind: 'set';
  readonly autoMerge?: boolean;
}

/** `type` (or `typeof`) is `KEY : VALUE`, e.g. `ipv4_addr . inet_proto . inet_service : verdict`. */
export interface NftMap extends SetProperties {
  readonly kind: 'map';
}

/**
 * An element of a named set (`set`) or map (`map`, with `value`). Key and value are lists of
 * nft expressions joined with ` . ` (concatenations).
 */
export interface Element extends InTable {
  readonly kind: 'element';
  readonly set?: string;
  readonly map?: string;
  readonly key: readonly string[];
  readonly value?: readonly string[];
  readonly comment?: string;
}

export interface Counter extends InTable {
  readonly kind: 'counter';
  readonly name: string;
  readonly comment?: string;
  /** Initial values; give both or neither. */
  readonly packets?: number;
  readonly bytes?: number;
}

export type NftObject = Table | Chain | Rule | NftSet | NftMap | Element | Counter;
export type ObjectKind = NftObject['kind'];
export const OBJECT_KINDS: readonly ObjectKind[] = ['table', 'chain', 'rule', 'set', 'map', 'element', 'counter'];

/** The table an object lives in. */
export function tableOf(object: NftObject): { readonly family: Family; readonly table: string } {
  return object.kind === 'table'
    ? { family: object.family, table: object.name }
    : { family: object.family, table: object.table };
}
