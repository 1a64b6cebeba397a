import { beforeEach, describe, expect, test } from 'vitest';
import type { Chain, Counter, Element, NftMap, NftObject, NftSet, Rule, Table } from '../objects/types.js';
import type { Verb } from '../verbs.js';
import { FakeNft } from './fake-nft.js';

const table: Table = { kind: 'table', family: 'ip', name: 'kpng' };
const services: Chain = { kind: 'chain', family: 'ip', table: 'kpng', name: 'services' };
const target: Chain = { kind: 'chain', family: 'ip', table: 'kpng', name: 'target' };
const input: Chain = {
  kind: 'chain',
  family: 'ip',
  table: 'kpng',
  name: 'filter-input',
  type: 'filter',
  hook: 'input',
  priority: 'dstnat-10',
};
const ips: NftSet = { kind: 'set', family: 'ip', table: 'kpng', name: 'cluster-ips', type: 'ipv4_addr' };
const vmap: NftMap = { kind: 'map', family: 'ip', table: 'kpng', name: 'service-ips', type: 'ipv4_addr : verdict' };
const drops: Counter = { kind: 'counter', family: 'ip', table: 'kpng', name: 'drops' };
const ipElement: Element = { kind: 'element', family: 'ip', table: 'kpng', set: 'cluster-ips', key: ['198.19.0.1'] };
const vmapElement: Element = {
  kind: 'element',
  family: 'ip',
  table: 'kpng',
  map: 'service-ips',
  key: ['198.19.0.1'],
  value: ['goto target'],
};
const rule = (text: string, extra: Partial<Rule> = {}): Rule => ({
  kind: 'rule',
  family: 'ip',
  table: 'kpng',
  chain: 'services',
  rule: text,
  ...extra,
});

/** The state every case starts from: a chain jumping to `target`, a set and map in use, a counter. */
async function seeded(): Promise<FakeNft> {
  const fake = new FakeNft();
  const tx = fake.newTransaction();
  for (const object of [table, services, target, input, ips, vmap, drops, ipElement, vmapElement]) tx.add(object);
  tx.add(rule('ip daddr @cluster-ips jump target'));
  tx.add(rule('ip daddr vmap @service-ips'));
  tx.add(rule('counter name "drops"'));
  await fake.run(tx);
  return fake;
}

type Case = readonly [
  name: string,
  verb: Verb,
  object: NftObject,
  error: 'not-found' | 'exists' | 'busy' | 'not-supported' | undefined,
];

const CASES: readonly Case[] = [
  ['add an existing table', 'add', table, undefined],
  ['create an existing table', 'create', table, 'exists'],
  ['delete a missing table', 'delete', { ...table, name: 'nope' }, 'not-found'],
  ['destroy a missing table', 'destroy', { ...table, name: 'nope' }, undefined],
  ['flush a missing table', 'flush', { ...table, family: 'ip6' }, 'not-found'],
  ['delete a table with contents', 'delete', table, undefined],
  ['add a chain to a missing table', 'add', { ...services, table: 'nope' }, 'not-found'],
  ['add an existing chain', 'add', services, undefined],
  ['create an existing chain', 'create', services, 'exists'],
  [
    'turn a regular chain into a base chain',
    'add',
    { ...services, type: 'filter', hook: 'input', priority: 0 },
    'exists',
  ],
  ['change a base chain priority', 'add', { ...input, priority: 0 }, 'not-supported'],
  ['change a base chain policy', 'add', { ...input, policy: 'drop' }, undefined],
  ['delete a chain with rules', 'delete', services, 'busy'],
  ['delete a chain a rule jumps to', 'delete', target, 'busy'],
  ['delete a missing chain', 'delete', { ...target, name: 'nope' }, 'not-found'],
  ['destroy a missing chain', 'destroy', { ...target, name: 'nope' }, undefined],
  ['flush a missing chain', 'flush', { ...target, name: 'nope' }, 'not-found'],
  ['add a rule to a missing chain', 'add', { ...rule('accept'), chain: 'nope' }, 'not-found'],
  ['add a rule jumping to a missing chain', 'add', rule('jump nope'), 'not-found'],
  [
    'add a rule going to a missing chain in an anonymous vmap',
    'add',
    rule('numgen random mod 2 vmap { 0 : goto target, 1 : goto nope }'),
    'not-found',
  ],
  ['add a rule using a missing set', 'add', rule('ip saddr @nope accept'), 'not-found'],
  ['add a rule using a missing counter', 'add', rule('counter name nope'), 'not-found'],
  ['add a rule quoting a name that is no reference', 'add', rule('iifname "jump-nope" accept'), undefined],
  ['add a rule after a missing index', 'add', rule('accept', { index: 3 }), 'not-found'],
  ['replace a missing handle', 'replace', rule('accept', { handle: 999 }), 'not-found'],
  ['delete a missing handle', 'delete', rule('accept', { handle: 999 }), 'not-found'],
  ['add an existing set', 'add', ips, undefined],
  ['add an existing set with a new comment', 'add', { ...ips, comment: 'ignored' }, undefined],
  ['add an existing set with another type', 'add', { ...ips, type: 'ipv6_addr' }, 'exists'],
  ['add an existing set with other flags', 'add', { ...ips, flags: ['interval'] }, 'exists'],
  ['add a set named like a map', 'add', { ...ips, name: 'service-ips' }, 'exists'],
  ['create an existing map', 'create', vmap, 'exists'],
  ['delete a set a rule uses', 'delete', ips, 'busy'],
  ['delete a map a rule uses', 'delete', vmap, 'busy'],
  ['flush a missing set', 'flush', { ...ips, name: 'nope' }, 'not-found'],
  ['add an element to a missing set', 'add', { ...ipElement, set: 'nope' }, 'not-found'],
  ['add a set element to a map', 'add', { ...ipElement, set: 'service-ips' }, 'not-found'],
  ['add an existing set element', 'add', ipElement, undefined],
  ['create an existing element', 'create', ipElement, 'exists'],
  ['add a map element with another value', 'add', { ...vmapElement, value: ['drop'] }, 'exists'],
  ['add a map element with the same value and a new comment', 'add', { ...vmapElement, comment: 'x' }, undefined],
  [
    'add a map element going to a missing chain',
    'add',
    { ...vmapElement, key: ['198.19.0.2'], value: ['goto nope'] },
    'not-found',
  ],
  ['delete a missing element', 'delete', { ...ipElement, key: ['198.19.9.9'] }, 'not-found'],
  ['destroy a missing element', 'destroy', { ...ipElement, key: ['198.19.9.9'] }, undefined],
  ['create an existing counter', 'create', drops, 'exists'],
  ['delete a counter a rule uses', 'delete', drops, 'busy'],
  ['reset a missing counter', 'reset', { ...drops, name: 'nope' }, 'not-found'],
];

describe('FakeNft existence rules', () => {
  test.each(CASES)('%s (%s) -> %s', async (_name, verb, object, error) => {
    const fake = await seeded();
    const before = fake.dump();
    const tx = fake.newTransaction();
    tx[verb](object);
    const outcome = await fake.run(tx).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (error === undefined) {
      expect(outcome).toBeUndefined();
    } else {
      expect(outcome).toMatchObject({ name: 'NftError', kind: error, line: 1, operation: { verb, object } });
      expect(fake.dump()).toBe(before);
    }
  });
});

describe('FakeNft transactions', () => {
  let fake: FakeNft;
  beforeEach(async () => {
    fake = await seeded();
  });

  test('a failing transaction changes nothing, and reports its line like nft', async () => {
    const before = fake.dump();
    const tx = fake.newTransaction();
    tx.add({ ...ipElement, key: ['198.19.0.9'] });
    tx.flush(services);
    tx.delete(target); // busy: the map element still goes to it
    const error = await fake.run(tx).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'busy', line: 3 });
    expect((error as Error).message).toMatch(
      /^\/dev\/stdin:3:1-\d+: Error: Could not process rule: Device or resource busy \(chain target is referenced by an element of map service-ips\)\ndelete chain ip kpng target\n\^+$/,
    );
    expect(fake.dump()).toBe(before);
  });

  test('references can be removed and the target deleted in one transaction', async () => {
    const tx = fake.newTransaction();
    tx.flush(services);
    tx.delete(vmapElement);
    tx.delete(target);
    tx.delete(ips);
    await fake.run(tx);
    expect(fake.objects().map((o) => `${o.kind} ${'name' in o ? o.name : ''}`)).not.toContain('chain target');
    expect(fake.lastTransaction).toBe(tx);
  });

  test('check validates without committing', async () => {
    const before = fake.dump();
    const tx = fake.newTransaction();
    tx.delete(table);
    await fake.check(tx);
    expect(fake.dump()).toBe(before);
  });

  test('a latched validation error is raised and nothing is applied', async () => {
    const tx = fake.newTransaction();
    tx.add({ ...services, name: 'x y' });
    await expect(fake.run(tx)).rejects.toMatchObject({ kind: 'invalid' });
  });

  test('flush table empties chains but keeps set elements', async () => {
    const tx = fake.newTransaction();
    tx.flush(table);
    await fake.run(tx);
    expect(fake.rules('ip', 'kpng', 'services')).toEqual([]);
    expect(fake.findElement('ip', 'kpng', 'cluster-ips', ['198.19.0.1'])).toEqual(ipElement);
  });

  test('rules are placed by index and handle, and keep their handle when replaced', async () => {
    const texts = (): string[] => fake.rules('ip', 'kpng', 'services').map((r) => r.rule);
    const tx = fake.newTransaction();
    tx.flush(services);
    tx.add(rule('ip saddr 1.1.1.1 accept'));
    tx.add(rule('ip saddr 3.3.3.3 accept'));
    tx.add(rule('ip saddr 2.2.2.2 accept', { index: 0 })); // after position 0
    tx.insert(rule('ip saddr 0.0.0.0 accept')); // first
    await fake.run(tx);
    expect(texts()).toEqual([
      'ip saddr 0.0.0.0 accept',
      'ip saddr 1.1.1.1 accept',
      'ip saddr 2.2.2.2 accept',
      'ip saddr 3.3.3.3 accept',
    ]);

    const [, second] = fake.rules('ip', 'kpng', 'services');
    const byHandle = fake.newTransaction();
    byHandle.insert(rule('ip saddr 0.5.0.0 accept', { handle: second?.handle as number }));
    byHandle.replace(rule('ip saddr 1.0.0.1 accept', { handle: second?.handle as number }));
    await fake.run(byHandle);
    expect(texts()).toEqual([
      'ip saddr 0.0.0.0 accept',
      'ip saddr 0.5.0.0 accept',
      'ip saddr 1.0.0.1 accept',
      'ip saddr 2.2.2.2 accept',
      'ip saddr 3.3.3.3 accept',
    ]);
    expect(fake.rules('ip', 'kpng', 'services')[2]?.handle).toBe(second?.handle);
  });

  test('lists tables with rule handles and elements by container', async () => {
    const listed = await fake.listTable('ip', 'kpng');
    expect(listed.filter((o) => o.kind === 'rule').every((r) => typeof r.handle === 'number')).toBe(true);
    expect(await fake.listElements('ip', 'kpng', { map: 'service-ips' })).toEqual([vmapElement]);
    await expect(fake.listElements('ip', 'kpng', { set: 'service-ips' })).rejects.toMatchObject({ kind: 'not-found' });
    await expect(fake.listTable('ip6', 'kpng')).rejects.toMatchObject({ kind: 'not-found' });
  });
});

describe('FakeNft dump', () => {
  test('is sorted, without handles, and a valid order to apply', async () => {
    const fake = await seeded();
    expect(fake.dump()).toBe(
      [
        'add table ip kpng',
        'add chain ip kpng filter-input { type filter hook input priority -110 ; }',
        'add chain ip kpng services',
        'add chain ip kpng target',
        'add set ip kpng cluster-ips { type ipv4_addr ; }',
        'add map ip kpng service-ips { type ipv4_addr : verdict ; }',
        'add counter ip kpng drops { packets 0 bytes 0 ; }',
        'add element ip kpng cluster-ips { 198.19.0.1 }',
        'add element ip kpng service-ips { 198.19.0.1 : goto target }',
        'add rule ip kpng services ip daddr @cluster-ips jump target',
        'add rule ip kpng services ip daddr vmap @service-ips',
        'add rule ip kpng services counter name "drops"',
        '',
      ].join('\n'),
    );
  });

  test('round-trips through parseDump', async () => {
    const original = await seeded();
    const copy = new FakeNft();
    copy.parseDump(original.dump());
    expect(copy.dump()).toBe(original.dump());
  });

  test('parseDump names the line it cannot read', () => {
    expect(() => new FakeNft().parseDump('add table ip kpng\n\nadd chain ip kpng\n')).toThrow(
      /dump line 3: missing chain name: add chain ip kpng/,
    );
  });

  test('an empty fake dumps nothing', () => {
    expect(new FakeNft().dump()).toBe('');
  });
});
