// Kernel tests: the real nft 1.0.x, always inside a network namespace this file creates.
// (Imports the lab by path until tools/lab's index re-exports ./netns.)
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createNamespace, kernelE2e, sweepLeftovers, type NetworkNamespace } from '@kpng/lab';
import { dumpObjects } from './canonical.js';
import { createNftClient, type NftClient } from './client.js';
import { isNftError } from './errors.js';
import { FakeNft } from './fake/fake-nft.js';
import type { Chain, Element, Family, NftMap, NftObject, NftSet, Rule, Table } from './objects/types.js';
import type { Transaction } from './transaction.js';
import type { Verb } from './verbs.js';

const e2e = await kernelE2e('nftables library');

/** A kube-proxy-shaped sample in nft's canonical spelling, so listings read back identically. */
function sample(family: Family): NftObject[] {
  const t = { family, table: 'kpng' } as const;
  const addr = family === 'ip6' ? 'ip6' : 'ip';
  const addrType = family === 'ip6' ? 'ipv6_addr' : 'ipv4_addr';
  const serviceIp = family === 'ip6' ? '2001:db8:5e::1' : '198.19.0.1';
  const podIp = family === 'ip6' ? '2001:db8:1::10' : '198.18.1.10';
  return [
    { kind: 'table', family, name: 'kpng', comment: 'rules for kpng' } satisfies Table,
    {
      kind: 'chain',
      ...t,
      name: 'nat-prerouting',
      type: 'nat',
      hook: 'prerouting',
      priority: 'dstnat',
    } satisfies Chain,
    {
      kind: 'chain',
      ...t,
      name: 'filter-input',
      type: 'filter',
      hook: 'input',
      priority: 'dstnat-10',
      comment: 'checks',
    } satisfies Chain,
    {
      kind: 'chain',
      ...t,
      name: 'filter-output',
      type: 'filter',
      hook: 'output',
      priority: 0,
      policy: 'drop',
    } satisfies Chain,
    { kind: 'chain', ...t, name: 'services' } satisfies Chain,
    { kind: 'chain', ...t, name: 'mark-for-masquerade' } satisfies Chain,
    { kind: 'chain', ...t, name: 'service-ULMVA6XW-ns1/svc1/tcp/p80' } satisfies Chain,
    {
      kind: 'chain',
      ...t,
      name: `endpoint-5OJB2KTY-ns1/svc1/tcp/p80__${podIp.replaceAll(':', '.')}/80`,
    } satisfies Chain,
    { kind: 'set', ...t, name: 'cluster-ips', type: addrType, comment: 'Active ClusterIPs' } satisfies NftSet,
    { kind: 'set', ...t, name: 'nodeport-ips', type: addrType, flags: ['interval'] } satisfies NftSet,
    {
      kind: 'map',
      ...t,
      name: 'service-ips',
      type: `${addrType} . inet_proto . inet_service : verdict`,
      comment: 'ClusterIP dispatch',
    } satisfies NftMap,
    { kind: 'counter', ...t, name: 'drops', comment: 'dropped' },
    { kind: 'element', ...t, set: 'cluster-ips', key: [serviceIp], comment: 'ns1/svc1' } satisfies Element,
    {
      kind: 'element',
      ...t,
      set: 'nodeport-ips',
      key: [family === 'ip6' ? '2001:db8:ff::/64' : '198.18.255.0/24'],
    } satisfies Element,
    {
      kind: 'element',
      ...t,
      map: 'service-ips',
      key: [serviceIp, 'tcp', '80'],
      value: ['goto service-ULMVA6XW-ns1/svc1/tcp/p80'],
      comment: 'ns1/svc1:p80',
    } satisfies Element,
    { kind: 'element', ...t, map: 'service-ips', key: [serviceIp, 'udp', '53'], value: ['drop'] } satisfies Element,
    { kind: 'rule', ...t, chain: 'nat-prerouting', rule: 'jump services' } satisfies Rule,
    {
      kind: 'rule',
      ...t,
      chain: 'services',
      rule: `${addr} daddr . meta l4proto . th dport vmap @service-ips`,
      comment: 'dispatch',
    } satisfies Rule,
    { kind: 'rule', ...t, chain: 'filter-input', rule: `${addr} daddr @cluster-ips reject` } satisfies Rule,
    { kind: 'rule', ...t, chain: 'mark-for-masquerade', rule: 'meta mark set meta mark | 0x00004000' } satisfies Rule,
    { kind: 'rule', ...t, chain: 'filter-output', rule: 'counter name "drops"' } satisfies Rule,
    {
      kind: 'rule',
      ...t,
      chain: 'service-ULMVA6XW-ns1/svc1/tcp/p80',
      rule: `numgen random mod 1 vmap { 0 : goto endpoint-5OJB2KTY-ns1/svc1/tcp/p80__${podIp.replaceAll(':', '.')}/80 }`,
    } satisfies Rule,
    {
      kind: 'rule',
      ...t,
      chain: `endpoint-5OJB2KTY-ns1/svc1/tcp/p80__${podIp.replaceAll(':', '.')}/80`,
      rule: `${addr} saddr ${podIp} jump mark-for-masquerade`,
    } satisfies Rule,
  ];
}

/** A verdict map keyed by address and port, for the element tests. */
const map: NftMap = { kind: 'map', family: 'ip', table: 'kpng', name: 'm', type: 'ipv4_addr . inet_service : verdict' };

// Every way of running nft: a process per command, one long-lived shell in the namespace, and
// transactions through one long-lived `nft -i` (include lines; the rest through the shell).
describe.skipIf(!e2e.run).each([
  ['a process per command', false, false],
  ['through one shell', true, false],
  ['through nft -i', true, true],
] as const)('nftables library against the real nft (kernel), %s', (_how, shell, interactive) => {
  let namespace: NetworkNamespace;
  let client: NftClient;

  beforeAll(async () => {
    await sweepLeftovers();
    namespace = await createNamespace('nftlib');
    client = await createNftClient({ netns: namespace.name, shell, interactive });
  });

  afterAll(async () => {
    await client?.close();
    await namespace?.delete();
  });

  beforeEach(async () => {
    await namespace.exec(['nft', 'flush', 'ruleset']);
  });

  const newTx = (objects: readonly NftObject[], verb: Verb = 'add'): Transaction => {
    const tx = client.newTransaction();
    for (const object of objects) tx[verb](object);
    return tx;
  };

  test('detects the host capabilities', () => {
    const [major, minor, patch] = client.capabilities.version.split('.').map(Number) as [number, number, number];
    expect(major * 10_000 + minor * 100 + patch).toBeGreaterThanOrEqual(10_001);
    expect(client.capabilities.objectComments).toBe(true);
    // nft gained `destroy` in 1.0.8.
    if (major === 1 && minor === 0 && patch < 8) expect(client.capabilities.destroy).toBe(false);
  });

  test.each(['ip', 'ip6', 'inet'] as const)('rendered %s samples pass nft --check', async (family) => {
    const objects = sample(family === 'inet' ? 'ip' : family).map((object) => ({ ...object, family }));
    await client.check(newTx(objects));
  });

  test("maps nft's error line back to the failing operation, and applies nothing", async () => {
    const [table, chain] = sample('ip') as [Table, Chain];
    const bad: Rule = { kind: 'rule', family: 'ip', table: 'kpng', chain: 'services', rule: 'jump nowhere' };
    const tx = newTx([table, chain, { ...chain, name: 'services' }, bad, { ...chain, name: 'after' }]);
    const error = await client.run(tx).catch((e: unknown) => e);
    expect(isNftError(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'not-found', line: 4, operation: { verb: 'add', object: bad } });
    // nft -i names the included file (after the line that includes it); nft -f -, stdin.
    expect((error as { stderr: string }).stderr).toMatch(
      /^(?:\/dev\/stdin|In file included from <cmdline>:1:1-\d+:\n\/\S+\/in):4:\d+-\d+: Error: Could not process rule: No such file or directory\nadd rule ip kpng services jump nowhere\n/,
    );
    await expect(client.listTable('ip', 'kpng')).rejects.toMatchObject({ kind: 'not-found' });
  });

  test('maps lines after an emulated destroy (two lines) to the right operation', async () => {
    const [table, chain] = sample('ip') as [Table, Chain];
    const set: NftSet = { kind: 'set', family: 'ip', table: 'kpng', name: 'gone', type: 'ipv4_addr' };
    const tx = newTx([table, chain]);
    tx.destroy(set);
    tx.create(chain);
    const error = await client.run(tx).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'exists', operation: { verb: 'create', object: chain } });
  });

  test('batched element lines: a failure maps to its own element, by column (also after multibyte comments)', async () => {
    const [table, chain] = sample('ip') as [Table, Chain];
    const element = (n: number, value: string, comment?: string): Element => ({
      kind: 'element',
      family: 'ip',
      table: 'kpng',
      map: 'm',
      key: [`198.19.0.${n}`, '80'],
      value: [value],
      ...(comment === undefined ? {} : { comment }),
    });
    const bad = element(3, 'goto nope');
    const tx = newTx([
      table,
      chain,
      map,
      element(1, 'accept', 'ünïcødé 日本'),
      element(2, 'drop', 'x'),
      bad,
      element(4, 'accept'),
    ]);
    const error = await client.run(tx).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'not-found', line: 4, operation: { verb: 'add', object: bad } });
    expect((error as { stderr: string }).stderr).toContain('add element ip kpng m { 198.19.0.1 . 80 comment');

    await client.run(newTx([table, chain, map, element(1, 'accept'), element(2, 'drop')]));
    const missing = element(7, 'accept');
    const deletes = newTx([element(1, 'accept'), missing, element(2, 'drop')], 'delete');
    await expect(client.run(deletes)).rejects.toMatchObject({
      kind: 'not-found',
      line: 1,
      operation: { verb: 'delete', object: missing },
    });
    expect((await client.listElements('ip', 'kpng', { map: 'm' })).length).toBe(2);
  });

  describe('deferred elements (addEach), streamed to nft a chunk at a time', () => {
    const [table, chain] = sample('ip') as [Table, Chain];
    const element = (n: number, value = 'accept'): Element => ({
      kind: 'element',
      family: 'ip',
      table: 'kpng',
      map: 'm',
      key: [`198.19.${n >> 8}.${n & 255}`, '80'],
      value: [value],
    });
    const COUNT = 6000;
    /** Replaces the map's elements with COUNT deferred ones; `at(n)` may change element n. */
    const rewrite = (at: (n: number) => Element = element): Transaction => {
      const tx = newTx([table, chain, map]);
      tx.flush(map);
      tx.addEach(COUNT, function* () {
        for (let n = 0; n < COUNT; n++) yield at(n);
      });
      return tx;
    };
    const kept = async (): Promise<number> => (await client.listElements('ip', 'kpng', { map: 'm' })).length;

    beforeEach(async () => {
      await client.run(newTx([table, chain, map, element(0), element(1)]));
    });

    test('a big one applies whole', async () => {
      await client.run(rewrite());
      expect(await kept()).toBe(COUNT);
    });

    test("nft's failure on a late element maps back to it (made again) and applies nothing", async () => {
      const bad = element(5000, 'goto nope');
      const error = await client.run(rewrite((n) => (n === 5000 ? bad : element(n)))).catch((e: unknown) => e);
      expect(error).toMatchObject({ kind: 'not-found', operation: { verb: 'add', object: bad } });
      expect(await kept()).toBe(2);
    });

    test.each([
      [
        'an invalid object, found while rendering',
        (n: number) => (n === 4000 ? { ...element(n), map: 'bad name' } : element(n)),
        { kind: 'invalid' },
      ],
      [
        'an exception thrown while rendering',
        (n: number) => {
          if (n === 4000) throw new Error('render blew up');
          return element(n);
        },
        { message: 'render blew up' },
      ],
    ] as const)('%s: nft never runs and the kernel keeps what it had', async (_name, at, expected) => {
      await expect(client.run(rewrite(at))).rejects.toMatchObject(expected);
      expect(await kept()).toBe(2);
      // The client (and its shell) still works.
      await client.run(rewrite());
      expect(await kept()).toBe(COUNT);
    });
  });

  test('sees what another process changed between two transactions (nft -i refreshes its cache)', async () => {
    const [table, chain] = sample('ip') as [Table, Chain];
    const set: NftSet = { kind: 'set', family: 'ip', table: 'kpng', name: 's', type: 'ipv4_addr' };
    const element = (n: number): Element => ({
      kind: 'element',
      family: 'ip',
      table: 'kpng',
      set: 's',
      key: [`198.18.0.${n}`],
    });
    await client.run(newTx([table, chain, set, element(1)]));
    await namespace.exec(['nft', 'delete', 'set', 'ip', 'kpng', 's']);
    await expect(client.run(newTx([element(2)]))).rejects.toMatchObject({ kind: 'not-found' });
    await namespace.exec(['nft', 'add', 'set', 'ip', 'kpng', 's', '{ type ipv4_addr; }']);
    await client.run(newTx([element(3)]));
    expect((await client.listElements('ip', 'kpng', { set: 's' })).map((e) => e.key)).toEqual([['198.18.0.3']]);
  });

  test('destroy deletes when present and is quiet when absent', async () => {
    const [table] = sample('ip') as [Table];
    const set: NftSet = { kind: 'set', family: 'ip', table: 'kpng', name: 'temp', type: 'ipv4_addr' };
    await client.run(newTx([table, set]));
    await client.run(newTx([set], 'destroy'));
    await client.run(newTx([set], 'destroy'));
    expect((await client.listTable('ip', 'kpng')).map((o) => o.kind)).toEqual(['table']);
  });

  test.each(['ip', 'ip6'] as const)('the fake and the real nft agree on a %s sample and on a delta', async (family) => {
    const fake = new FakeNft();
    const objects = sample(family);
    await client.run(newTx(objects));
    await fake.run(newTx(objects));
    expect(dumpObjects(await client.listTable(family, 'kpng'))).toBe(fake.dump());

    // A delta: remove a service's dispatch entry and chains, add a rule at an index, replace one.
    const [realServices, fakeServices] = [
      await client.listTable(family, 'kpng'),
      await fake.listTable(family, 'kpng'),
    ].map((listed) => listed.filter((o): o is Rule => o.kind === 'rule' && o.chain === 'services'));
    for (const [nft, rules] of [
      [client, realServices],
      [fake, fakeServices],
    ] as const) {
      const tx = nft.newTransaction();
      const element = objects.find(
        (o): o is Element => o.kind === 'element' && o.map === 'service-ips' && o.key[1] === 'tcp',
      ) as Element;
      tx.delete(element);
      for (const chain of objects.filter((o): o is Chain => o.kind === 'chain' && o.name.includes('/')))
        tx.flush(chain);
      for (const chain of objects.filter((o): o is Chain => o.kind === 'chain' && o.name.includes('/')))
        tx.delete(chain);
      tx.add({ kind: 'rule', family, table: 'kpng', chain: 'services', rule: 'counter', index: 0 });
      tx.insert({ kind: 'rule', family, table: 'kpng', chain: 'services', rule: 'meta l4proto tcp accept' });
      tx.replace({
        kind: 'rule',
        family,
        table: 'kpng',
        chain: 'services',
        rule: 'accept',
        comment: 'replaced',
        handle: rules?.[0]?.handle as number,
      });
      await nft.run(tx);
    }
    expect(dumpObjects(await client.listTable(family, 'kpng'))).toBe(fake.dump());
  });

  type Step = readonly [name: string, outcome: string, verb: Verb, object: NftObject];
  const t = { family: 'ip', table: 'kpng' } as const;
  const STEPS: readonly Step[] = [
    ['create existing table', 'exists', 'create', { kind: 'table', family: 'ip', name: 'kpng' }],
    ['delete missing table', 'not-found', 'delete', { kind: 'table', family: 'ip', name: 'nope' }],
    ['create existing chain', 'exists', 'create', { kind: 'chain', ...t, name: 'services' }],
    [
      'regular chain made base',
      'exists',
      'add',
      { kind: 'chain', ...t, name: 'services', type: 'filter', hook: 'input', priority: 0 },
    ],
    [
      'base chain priority change',
      'not-supported',
      'add',
      { kind: 'chain', ...t, name: 'filter-output', type: 'filter', hook: 'output', priority: 10 },
    ],
    [
      'base chain policy change',
      'ok',
      'add',
      { kind: 'chain', ...t, name: 'filter-output', type: 'filter', hook: 'output', priority: 0, policy: 'accept' },
    ],
    ['delete chain with rules', 'busy', 'delete', { kind: 'chain', ...t, name: 'services' }],
    [
      'delete chain a vmap element goes to',
      'busy',
      'delete',
      { kind: 'chain', ...t, name: 'service-ULMVA6XW-ns1/svc1/tcp/p80' },
    ],
    ['flush a chain', 'ok', 'flush', { kind: 'chain', ...t, name: 'mark-for-masquerade' }],
    ['delete missing chain', 'not-found', 'delete', { kind: 'chain', ...t, name: 'nope' }],
    ['rule to missing chain', 'not-found', 'add', { kind: 'rule', ...t, chain: 'services', rule: 'goto nope' }],
    [
      'rule with missing set',
      'not-found',
      'add',
      { kind: 'rule', ...t, chain: 'services', rule: 'ip saddr @nope accept' },
    ],
    [
      'rule after missing index',
      'not-found',
      'add',
      { kind: 'rule', ...t, chain: 'services', rule: 'accept', index: 5 },
    ],
    [
      'delete missing handle',
      'not-found',
      'delete',
      { kind: 'rule', ...t, chain: 'services', rule: 'accept', handle: 9999 },
    ],
    ['set type change', 'exists', 'add', { kind: 'set', ...t, name: 'cluster-ips', type: 'inet_service' }],
    [
      'set re-add with new comment',
      'ok',
      'add',
      { kind: 'set', ...t, name: 'cluster-ips', type: 'ipv4_addr', comment: 'new' },
    ],
    ['set named like a map', 'exists', 'add', { kind: 'set', ...t, name: 'service-ips', type: 'ipv4_addr' }],
    ['delete used set', 'busy', 'delete', { kind: 'set', ...t, name: 'cluster-ips' }],
    ['flush map', 'ok', 'flush', { kind: 'map', ...t, name: 'service-ips', type: 'ipv4_addr : verdict' }],
    ['create existing element', 'exists', 'create', { kind: 'element', ...t, set: 'cluster-ips', key: ['198.19.0.1'] }],
    [
      're-add element',
      'ok',
      'add',
      { kind: 'element', ...t, set: 'cluster-ips', key: ['198.19.0.1'], comment: 'other' },
    ],
    [
      'map element new value',
      'exists',
      'add',
      { kind: 'element', ...t, map: 'service-ips', key: ['198.19.0.1', 'udp', '53'], value: ['accept'] },
    ],
    [
      'map element to missing chain',
      'not-found',
      'add',
      { kind: 'element', ...t, map: 'service-ips', key: ['198.19.0.9', 'udp', '53'], value: ['goto nope'] },
    ],
    [
      'delete missing element',
      'not-found',
      'delete',
      { kind: 'element', ...t, set: 'cluster-ips', key: ['198.19.9.9'] },
    ],
    ['element of missing set', 'not-found', 'add', { kind: 'element', ...t, set: 'nope', key: ['198.19.0.1'] }],
    ['delete used counter', 'busy', 'delete', { kind: 'counter', ...t, name: 'drops' }],
    ['reset missing counter', 'not-found', 'reset', { kind: 'counter', ...t, name: 'nope' }],
    ['flush table', 'ok', 'flush', { kind: 'table', family: 'ip', name: 'kpng' }],
    ['delete table', 'ok', 'delete', { kind: 'table', family: 'ip', name: 'kpng' }],
  ];

  test.each(STEPS)('the fake and the real nft agree: %s -> %s', async (_name, expected, verb, object) => {
    const fake = new FakeNft();
    await client.run(newTx(sample('ip')));
    await fake.run(newTx(sample('ip')));
    const outcome = async (nft: NftClient | FakeNft): Promise<string> => {
      const tx = nft.newTransaction();
      tx[verb](object);
      const error = await nft.run(tx).catch((e: unknown) => e);
      return error === undefined ? 'ok' : (error as { kind: string }).kind;
    };
    const listing = async (nft: NftClient | FakeNft): Promise<string> =>
      dumpObjects(await nft.listTable('ip', 'kpng').catch(() => []));
    const [real, simulated] = [await outcome(client), await outcome(fake)];
    expect(real).toBe(expected);
    expect(simulated).toBe(real);
    expect(await listing(fake)).toBe(await listing(client));
  });
});
