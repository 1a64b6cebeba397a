import { describe, expect, test } from 'vitest';
import { VERBS, type Verb } from '../verbs.js';
import { DEFAULT_RENDER_CONTEXT } from './codec.js';
import { parseAddLine, renderObject, validateObject } from './index.js';
import {
  OBJECT_KINDS,
  type Chain,
  type Counter,
  type Element,
  type NftMap,
  type NftObject,
  type NftSet,
  type Rule,
  type Table,
} from './types.js';

const table: Table = { kind: 'table', family: 'ip', name: 'kpng', comment: 'rules for kpng' };
const chain: Chain = { kind: 'chain', family: 'ip', table: 'kpng', name: 'services', comment: 'dispatch' };
const baseChain: Chain = {
  kind: 'chain',
  family: 'ip',
  table: 'kpng',
  name: 'filter-input',
  type: 'filter',
  hook: 'input',
  priority: 'dstnat-10',
  policy: 'accept',
};
const rule: Rule = {
  kind: 'rule',
  family: 'ip',
  table: 'kpng',
  chain: 'services',
  rule: 'ip daddr . meta l4proto . th dport vmap @service-ips',
  comment: 'dispatch',
};
const set: NftSet = {
  kind: 'set',
  family: 'ip',
  table: 'kpng',
  name: 'cluster-ips',
  type: 'ipv4_addr',
  flags: ['interval'],
  comment: 'all ClusterIPs',
};
const map: NftMap = {
  kind: 'map',
  family: 'ip',
  table: 'kpng',
  name: 'service-ips',
  type: 'ipv4_addr . inet_proto . inet_service : verdict',
};
const setElement: Element = {
  kind: 'element',
  family: 'ip',
  table: 'kpng',
  set: 'cluster-ips',
  key: ['198.19.0.1'],
  comment: 'ns/svc',
};
const mapElement: Element = {
  kind: 'element',
  family: 'ip',
  table: 'kpng',
  map: 'service-ips',
  key: ['198.19.0.1', 'tcp', '80'],
  value: ['goto service-ABC-ns/svc/tcp/p80'],
  comment: 'ns/svc:p80',
};
const counter: Counter = {
  kind: 'counter',
  family: 'ip',
  table: 'kpng',
  name: 'drops',
  comment: 'dropped',
  packets: 1,
  bytes: 2,
};

function omit<T extends object, K extends keyof T>(object: T, ...keys: K[]): Omit<T, K> {
  const copy = { ...object };
  for (const key of keys) delete copy[key];
  return copy;
}

/** [description, verb, object, rendered line or /refusal/] */
type Case = readonly [string, Verb, NftObject, string | RegExp];

const CASES: readonly Case[] = [
  ['table', 'add', table, 'add table ip kpng { comment "rules for kpng" ; }'],
  ['table without comment', 'add', { kind: 'table', family: 'ip6', name: 'kpng' }, 'add table ip6 kpng'],
  ['table', 'create', table, 'create table ip kpng { comment "rules for kpng" ; }'],
  ['table', 'insert', table, /insert is not supported for tables/],
  ['table', 'replace', table, /replace is not supported for tables/],
  ['table', 'delete', table, 'delete table ip kpng'],
  ['table', 'destroy', table, 'destroy table ip kpng'],
  ['table', 'flush', table, 'flush table ip kpng'],
  ['table', 'reset', table, /reset is not supported for tables/],
  ['table with a keyword name', 'add', { ...table, name: 'counter' }, /nft keyword/],
  ['table of an unknown family', 'add', { ...table, family: 'bridge' as 'ip' }, /unknown family/],

  ['chain', 'add', chain, 'add chain ip kpng services { comment "dispatch" ; }'],
  [
    'base chain',
    'add',
    baseChain,
    'add chain ip kpng filter-input { type filter hook input priority -110 ; policy accept ; }',
  ],
  ['chain', 'create', omit(chain, 'comment'), 'create chain ip kpng services'],
  ['chain', 'insert', chain, /insert is not supported for chains/],
  ['chain', 'replace', chain, /replace is not supported for chains/],
  ['chain', 'delete', chain, 'delete chain ip kpng services'],
  ['chain', 'destroy', chain, 'destroy chain ip kpng services'],
  ['chain', 'flush', baseChain, 'flush chain ip kpng filter-input'],
  ['chain', 'reset', chain, /reset is not supported for chains/],
  ['base chain without a priority', 'add', omit(baseChain, 'priority'), /needs a type, hook and priority/],
  ['regular chain with a policy', 'add', { ...chain, policy: 'drop' }, /must not have a policy/],
  ['base chain with an unknown priority name', 'add', { ...baseChain, priority: 'soon' }, /invalid priority/],
  [
    'ingress chain',
    'add',
    { ...omit(baseChain, 'policy'), family: 'inet', hook: 'ingress', device: 'eth0', priority: -500 },
    'add chain inet kpng filter-input { type filter hook ingress device "eth0" priority -500 ; }',
  ],
  ['ingress chain without a device', 'add', { ...baseChain, hook: 'ingress' }, /device is required/],

  [
    'rule',
    'add',
    rule,
    'add rule ip kpng services ip daddr . meta l4proto . th dport vmap @service-ips comment "dispatch"',
  ],
  [
    'rule at an index',
    'add',
    { ...omit(rule, 'comment'), index: 2 },
    'add rule ip kpng services index 2 ip daddr . meta l4proto . th dport vmap @service-ips',
  ],
  ['rule', 'create', rule, /create is not supported for rules/],
  [
    'rule',
    'insert',
    { ...rule, handle: 7 },
    'insert rule ip kpng services handle 7 ip daddr . meta l4proto . th dport vmap @service-ips comment "dispatch"',
  ],
  [
    'rule',
    'replace',
    { ...rule, handle: 7 },
    'replace rule ip kpng services handle 7 ip daddr . meta l4proto . th dport vmap @service-ips comment "dispatch"',
  ],
  ['rule without a handle', 'replace', rule, /replace rule needs a handle/],
  ['rule', 'delete', { ...rule, handle: 7 }, 'delete rule ip kpng services handle 7'],
  ['rule without a handle', 'delete', rule, /delete rule needs a handle/],
  ['rule', 'destroy', { ...rule, handle: 7 }, /destroy is not supported for rules/],
  ['rule', 'flush', rule, /flush is not supported for rules/],
  ['rule', 'reset', rule, /reset is not supported for rules/],
  ['rule with index and handle', 'add', { ...rule, index: 1, handle: 2 }, /both an index and a handle/],
  ['rule text with a second command', 'add', { ...rule, rule: 'accept; flush ruleset' }, /must not contain ";"/],
  [
    'rule text with a line break',
    'add',
    { ...rule, rule: 'accept\nflush ruleset' },
    /control characters or line breaks/,
  ],
  ['rule text opening a brace', 'add', { ...rule, rule: 'ip daddr {' }, /unclosed bracket/],

  ['set', 'add', set, 'add set ip kpng cluster-ips { type ipv4_addr ; flags interval ; comment "all ClusterIPs" ; }'],
  [
    'set with every property',
    'create',
    {
      ...omit(set, 'comment'),
      flags: ['dynamic', 'timeout'],
      timeout: 10800,
      gcInterval: 10,
      size: 65535,
      policy: 'memory',
      autoMerge: true,
    },
    'create set ip kpng cluster-ips { type ipv4_addr ; flags dynamic,timeout ; timeout 10800s ; gc-interval 10s ; size 65535 ; policy memory ; auto-merge ; }',
  ],
  ['set', 'insert', set, /insert is not supported for sets/],
  ['set', 'replace', set, /replace is not supported for sets/],
  ['set', 'delete', set, 'delete set ip kpng cluster-ips'],
  ['set', 'destroy', set, 'destroy set ip kpng cluster-ips'],
  ['set', 'flush', set, 'flush set ip kpng cluster-ips'],
  ['set', 'reset', set, /reset is not supported for sets/],
  ['set without a type', 'add', omit(set, 'type'), /exactly one of type and typeof/],
  ['set with a map type', 'add', { ...set, type: 'ipv4_addr : verdict' }, /must not contain " : "/],
  ['set with a duplicate flag', 'add', { ...set, flags: ['interval', 'interval'] }, /duplicate set flag/],

  ['map', 'add', map, 'add map ip kpng service-ips { type ipv4_addr . inet_proto . inet_service : verdict ; }'],
  [
    'map by typeof',
    'create',
    { ...omit(map, 'type'), typeof: 'ip daddr . tcp dport : ip daddr' },
    'create map ip kpng service-ips { typeof ip daddr . tcp dport : ip daddr ; }',
  ],
  ['map', 'insert', map, /insert is not supported for maps/],
  ['map', 'replace', map, /replace is not supported for maps/],
  ['map', 'delete', map, 'delete map ip kpng service-ips'],
  ['map', 'destroy', map, 'destroy map ip kpng service-ips'],
  ['map', 'flush', map, 'flush map ip kpng service-ips'],
  ['map', 'reset', map, /reset is not supported for maps/],
  ['map without a value type', 'add', { ...map, type: 'ipv4_addr' }, /must be "KEY : VALUE"/],

  ['set element', 'add', setElement, 'add element ip kpng cluster-ips { 198.19.0.1 comment "ns/svc" }'],
  [
    'map element',
    'add',
    mapElement,
    'add element ip kpng service-ips { 198.19.0.1 . tcp . 80 comment "ns/svc:p80" : goto service-ABC-ns/svc/tcp/p80 }',
  ],
  [
    'map element',
    'create',
    omit(mapElement, 'comment'),
    'create element ip kpng service-ips { 198.19.0.1 . tcp . 80 : goto service-ABC-ns/svc/tcp/p80 }',
  ],
  ['element', 'insert', setElement, /insert is not supported for elements/],
  ['element', 'replace', setElement, /replace is not supported for elements/],
  ['map element', 'delete', omit(mapElement, 'value'), 'delete element ip kpng service-ips { 198.19.0.1 . tcp . 80 }'],
  ['map element', 'destroy', mapElement, 'destroy element ip kpng service-ips { 198.19.0.1 . tcp . 80 }'],
  ['map element without its value', 'destroy', omit(mapElement, 'value'), /destroy of a map element needs a value/],
  ['element', 'flush', setElement, /flush is not supported for elements/],
  ['element', 'reset', setElement, /reset is not supported for elements/],
  ['set element with a value', 'add', { ...setElement, value: ['drop'] }, /set element cannot have a value/],
  ['element of both a set and a map', 'add', { ...setElement, map: 'service-ips' }, /exactly one of set and map/],
  [
    'element key smuggling a second element',
    'add',
    { ...setElement, key: ['198.19.0.1, 198.19.0.2'] },
    /not a single nft value/,
  ],
  [
    'element key closing the element',
    'add',
    { ...setElement, key: ['1.2.3.4 } ; flush ruleset ; add element ip kpng cluster-ips { 5.6.7.8'] },
    /not a single nft value/,
  ],
  ['map element with a verdict to a keyword', 'add', { ...mapElement, value: ['goto counter'] }, /nft keyword/],

  ['counter', 'add', counter, 'add counter ip kpng drops { packets 1 bytes 2 ; comment "dropped" ; }'],
  [
    'counter',
    'create',
    { kind: 'counter', family: 'ip', table: 'kpng', name: 'drops' },
    'create counter ip kpng drops',
  ],
  ['counter', 'insert', counter, /insert is not supported for counters/],
  ['counter', 'replace', counter, /replace is not supported for counters/],
  ['counter', 'delete', counter, 'delete counter ip kpng drops'],
  ['counter', 'destroy', counter, 'destroy counter ip kpng drops'],
  ['counter', 'flush', counter, /flush is not supported for counters/],
  ['counter', 'reset', counter, 'reset counter ip kpng drops'],
  ['counter with packets but no bytes', 'add', omit(counter, 'bytes'), /both packets and bytes/],
];

describe('object rendering and validation', () => {
  test.each(CASES)('%s: %s', (_name, verb, object, expected) => {
    const problem = validateObject(object, verb);
    if (expected instanceof RegExp) {
      expect(problem).toMatch(expected);
    } else {
      expect(problem).toBeUndefined();
      expect(renderObject(object, verb, DEFAULT_RENDER_CONTEXT)).toBe(expected);
    }
  });

  test('every kind has a case for every verb', () => {
    const covered = new Set(CASES.map(([, verb, object]) => `${object.kind} ${verb}`));
    const missing = OBJECT_KINDS.flatMap((kind) => VERBS.map((verb) => `${kind} ${verb}`)).filter(
      (pair) => !covered.has(pair),
    );
    expect(missing).toEqual([]);
  });

  test('object comments are dropped where the host does not support them; rule and element comments stay', () => {
    const ctx = { objectComments: false };
    expect(renderObject(table, 'add', ctx)).toBe('add table ip kpng');
    expect(renderObject(set, 'add', ctx)).toBe('add set ip kpng cluster-ips { type ipv4_addr ; flags interval ; }');
    expect(renderObject(rule, 'add', ctx)).toContain('comment "dispatch"');
    expect(renderObject(setElement, 'add', ctx)).toContain('comment "ns/svc"');
  });
});

describe('parseAddLine', () => {
  const adds = CASES.filter(
    (c): c is readonly [string, Verb, NftObject, string] => c[1] === 'add' && typeof c[3] === 'string',
  );

  test.each(adds)('%s round-trips through its add line', (_name, _verb, _object, line) => {
    const parsed = parseAddLine(line);
    expect(renderObject(parsed, 'add', DEFAULT_RENDER_CONTEXT)).toBe(line);
    expect(validateObject(parsed, 'add')).toBeUndefined();
  });

  test('a map element is told from a set element by its value', () => {
    expect(parseAddLine('add element ip kpng service-ips { 198.19.0.1 . tcp . 80 : drop }')).toEqual({
      kind: 'element',
      family: 'ip',
      table: 'kpng',
      map: 'service-ips',
      key: ['198.19.0.1', 'tcp', '80'],
      value: ['drop'],
    });
  });

  test('rule text containing quotes keeps them, and the trailing comment is split off', () => {
    expect(parseAddLine('add rule inet kpng c iifname "eth0" accept comment "a: b"')).toEqual({
      kind: 'rule',
      family: 'inet',
      table: 'kpng',
      chain: 'c',
      rule: 'iifname "eth0" accept',
      comment: 'a: b',
    });
  });

  test.each([
    ['add widget ip kpng x', /expected "add <table/],
    ['add table bridge kpng', /unknown family/],
    ['add chain ip kpng', /missing chain name/],
    ['add set ip kpng s { colour blue ; }', /unknown set property/],
  ])('refuses %j', (line, error) => {
    expect(() => parseAddLine(line)).toThrow(error);
  });
});
