import { serviceKey, type NodeLocalState, type ServiceKey, type SyncRequest } from '@kpng/core';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { Execer } from '@kpng/kit';
import { NftError, type Nft, type Transaction } from '@kpng/nftables';
import { FakeNft } from '@kpng/nftables/testing';
import { nodeState, type ServiceFixture } from '../testing/fixtures.js';
import { RecordingLogger, syntheticLocalState } from '@kpng/core/testing';
import { NftBackend } from './nft-backend.js';

const web = (endpoints: string[]): ServiceFixture => ({
  name: 'web',
  clusterIPs: ['198.19.0.1'],
  ports: [{ port: 80, nodePort: 30080 }],
  endpoints: endpoints.map((ip) => ({ ip })),
});
const db: ServiceFixture = { name: 'db', clusterIPs: ['198.19.0.2'], endpoints: [{ ip: '198.18.1.9' }] };

function full(state: NodeLocalState, revision = 1): SyncRequest {
  return { state, changes: { triggerTimes: new Map(), nodeChanged: false }, full: true, revision };
}
function partial(state: NodeLocalState, changed: string[], revision = 2): SyncRequest {
  const updatedServices = new Set(changed.map((name) => serviceKey('default', name))) as ReadonlySet<ServiceKey>;
  return { state, changes: { updatedServices, triggerTimes: new Map(), nodeChanged: false }, full: false, revision };
}
const lines = (tx: Transaction | undefined): string[] => (tx === undefined ? [] : tx.toString().trim().split('\n'));

function backend(nft: Nft, registry?: Registry, log = new RecordingLogger()): NftBackend {
  return new NftBackend({
    nft,
    families: ['IPv4'],
    conntrack: false,
    log,
    ...(registry === undefined ? {} : { metrics: registry }),
  });
}

describe('NftBackend', () => {
  it('logs one info line per sync with counts, never the ruleset', async () => {
    const log = new RecordingLogger();
    await backend(new FakeNft(), undefined, log).sync(full(nodeState([web(['198.18.1.1']), db])));
    expect(log.records).toEqual([
      {
        level: 'info',
        msg: 'synced nftables',
        fields: expect.objectContaining({ full: true, reset: true, services: 2, operations: expect.any(Number) }),
      },
    ]);
  });

  it("programs only the node's families: no ip6 table on an IPv4 node; one gained, dropped when lost", async () => {
    const nft = new FakeNft();
    const dual = new NftBackend({ nft, families: ['IPv4', 'IPv6'], conntrack: false, log: new RecordingLogger() });
    const tables = () =>
      nft
        .objects()
        .filter((o) => o.kind === 'table')
        .map((o) => `${o.family} ${o.name}`);
    const state = nodeState([web(['198.18.1.1'])]);
    nft.parseDump('add table ip6 kpng\n'); // left by an earlier dual-stack run
    await dual.sync({ ...full(state), families: ['IPv4'] });
    expect(tables()).toEqual(['ip kpng']);
    await dual.sync({ ...partial(state, ['web']), families: ['IPv4', 'IPv6'] });
    expect(tables()).toEqual(['ip kpng', 'ip6 kpng']);
    expect([...dual.rulesets().keys()]).toEqual(['IPv4', 'IPv6']);
    await dual.sync({ ...partial(state, ['web'], 3), families: ['IPv4'] });
    expect(tables()).toEqual(['ip kpng']);
    expect([...dual.rulesets().keys()]).toEqual(['IPv4']);
  });

  it("guards the node view's ServiceCIDRs, falling back to the configured ranges when there are none", async () => {
    const nft = new FakeNft();
    const b = new NftBackend({ nft, families: ['IPv4'], conntrack: false, serviceCIDRs: ['198.19.0.0/16'] });
    const guarded = () => nft.elements('ip', 'kpng', 'service-cidrs').map((e) => e.key.join(' '));
    const state = nodeState([web(['198.18.1.1'])]);
    await b.sync(full(state));
    expect(guarded()).toEqual(['198.19.0.0/16']); // the configured range
    const withCIDRs = { ...state, node: { ...state.node, serviceCIDRs: ['198.19.0.0/20', '2001:db8:5e::/64'] } };
    await b.sync({ ...full(withCIDRs, 2), changes: { triggerTimes: new Map(), nodeChanged: true } });
    expect(guarded()).toEqual(['198.19.0.0/20']); // the cluster's ServiceCIDRs, this family's
  });

  it('first sync drops and recreates the table in one transaction', async () => {
    const nft = new FakeNft();
    await backend(nft).sync(full(nodeState([web(['198.18.1.1'])])));
    const tx = lines(nft.lastTransaction);
    expect(tx.slice(0, 3)).toEqual([
      'add table ip kpng { comment "rules for kpng" ; }',
      'delete table ip kpng',
      'add table ip kpng { comment "rules for kpng" ; }',
    ]);
    expect(nft.findElement('ip', 'kpng', 'service-ips', ['198.19.0.1', 'tcp', '80'])?.value).toEqual([
      'goto pick-tcp-1',
    ]);
  });

  it('a partial sync writes only the changed elements', async () => {
    const nft = new FakeNft();
    const b = backend(nft);
    await b.sync(full(nodeState([web(['198.18.1.1', '198.18.1.2']), db])));
    await b.sync(partial(nodeState([web(['198.18.1.1', '198.18.1.3']), db]), ['web']));
    expect(lines(nft.lastTransaction)).toEqual([
      'delete element ip kpng hairpin { 198.18.1.2 . 198.18.1.2 }',
      'delete element ip kpng endpoints-tcp { 198.19.0.1 . 80 . 1 }',
      'delete element ip kpng endpoints-tcp { 0.0.0.0 . 30080 . 1 }',
      'add element ip kpng hairpin { 198.18.1.3 . 198.18.1.3 }',
      'add element ip kpng endpoints-tcp { 198.19.0.1 . 80 . 1 : 198.18.1.3 . 8080 }',
      'add element ip kpng endpoints-tcp { 0.0.0.0 . 30080 . 1 : 198.18.1.3 . 8080 }',
    ]);
  });

  it('a partial sync adds a chain for a new endpoint count and deletes the unused one', async () => {
    const nft = new FakeNft();
    const b = backend(nft);
    await b.sync(full(nodeState([web(['198.18.1.1']), db])));
    await b.sync(partial(nodeState([web(['198.18.1.1', '198.18.1.2']), db]), ['web']));
    const tx = lines(nft.lastTransaction);
    expect(tx.filter((l) => l.includes(' chain ') || l.startsWith('add rule'))).toEqual([
      'add chain ip kpng pick-tcp-2',
      'add chain ip kpng pick-tcp-np-2',
      'add chain ip kpng external-pick-tcp-np-2',
      'add rule ip kpng pick-tcp-2 meta l4proto tcp dnat ip to ip daddr . th dport . numgen random mod 2 map @endpoints-tcp',
      'add rule ip kpng pick-tcp-np-2 meta l4proto tcp dnat ip to ip daddr & 0.0.0.0 . th dport . numgen random mod 2 map @endpoints-tcp',
      'add rule ip kpng external-pick-tcp-np-2 jump mark-for-masquerade',
      'add rule ip kpng external-pick-tcp-np-2 goto pick-tcp-np-2',
      'flush chain ip kpng external-pick-tcp-np-1',
      'flush chain ip kpng pick-tcp-np-1',
      'delete chain ip kpng external-pick-tcp-np-1',
      'delete chain ip kpng pick-tcp-np-1',
    ]);
    // pick-tcp-1 is still used by db.
    expect(nft.rules('ip', 'kpng', 'pick-tcp-1')).toHaveLength(1);
  });

  it('a deleted Service leaves nothing behind', async () => {
    const nft = new FakeNft();
    const b = backend(nft);
    await b.sync(full(nodeState([db])));
    const before = nft.dump();
    await b.sync(partial(nodeState([db, web(['198.18.1.1'])]), ['web']));
    await b.sync(partial(nodeState([db]), ['web'], 3));
    expect(nft.dump()).toBe(before);
  });

  it('a periodic full sync re-renders everything but writes only the differences, and probes the canary', async () => {
    const nft = new FakeNft();
    const b = backend(nft);
    await b.sync(full(nodeState([web(['198.18.1.1']), db])));
    await b.sync(partial(nodeState([web(['198.18.1.1', '198.18.1.2']), db]), ['web']));
    const afterPartial = nft.dump();
    await b.sync(full(nodeState([web(['198.18.1.1', '198.18.1.2']), db]), 3));
    expect(nft.dump()).toBe(afterPartial);
    expect(lines(nft.lastTransaction)).toEqual([
      'delete element ip kpng resync-canary { 0.0.0.0 }',
      'add element ip kpng resync-canary { 0.0.0.0 }',
    ]);
    // A change nobody reported (a missed event) is written by the resync.
    await b.sync(full(nodeState([web(['198.18.1.1', '198.18.1.2']), { ...db, endpoints: [{ ip: '198.18.1.8' }] }]), 4));
    expect(lines(nft.lastTransaction)).toEqual([
      'delete element ip kpng hairpin { 198.18.1.9 . 198.18.1.9 }',
      'delete element ip kpng endpoints-tcp { 198.19.0.2 . 80 . 0 }',
      'add element ip kpng hairpin { 198.18.1.8 . 198.18.1.8 }',
      'add element ip kpng endpoints-tcp { 198.19.0.2 . 80 . 0 : 198.18.1.8 . 8080 }',
      'delete element ip kpng resync-canary { 0.0.0.0 }',
      'add element ip kpng resync-canary { 0.0.0.0 }',
    ]);
    const fresh = new FakeNft();
    await backend(fresh).sync(
      full(nodeState([web(['198.18.1.1', '198.18.1.2']), { ...db, endpoints: [{ ip: '198.18.1.8' }] }])),
    );
    expect(fresh.dump()).toBe(nft.dump());
  });

  it('a resync that finds the table deleted behind its back rewrites it, without a failure', async () => {
    const nft = new FakeNft();
    const registry = new Registry();
    const log = new RecordingLogger();
    const b = backend(nft, registry, log);
    const state = nodeState([web(['198.18.1.1']), db]);
    await b.sync(full(state));
    const before = nft.dump();
    const vandal = nft.newTransaction();
    vandal.delete({ kind: 'table', family: 'ip', name: 'kpng' });
    await nft.run(vandal);
    await b.sync(full(state, 2));
    expect(nft.dump()).toBe(before);
    expect(lines(nft.lastTransaction).slice(0, 2)).toEqual([
      'add table ip kpng { comment "rules for kpng" ; }',
      'delete table ip kpng',
    ]);
    expect(log.records.map((l) => [l.level, l.msg])).toContainEqual([
      'warn',
      'the kpng tables drifted; rewriting them',
    ]);
    expect(await registry.metrics()).not.toContain('sync_failures_total{ip_family="IPv4"} 1');
  });

  it('a failed transaction throws, counts the failure, keeps the old table, and resets next time', async () => {
    const fake = new FakeNft();
    let failNext = false;
    const nft: Nft = {
      newTransaction: () => fake.newTransaction(),
      run: async (tx) => {
        if (failNext) {
          failNext = false;
          throw NftError.fromNft(
            '/dev/stdin:1:1-5: Error: Could not process rule: No such file or directory\n',
            [0],
            tx.operations,
          );
        }
        await fake.run(tx);
      },
      check: (tx) => fake.check(tx),
      listTable: (f, t) => fake.listTable(f, t),
      listElements: (f, t, c) => fake.listElements(f, t, c),
    };
    const registry = new Registry();
    const log = new RecordingLogger();
    const b = backend(nft, registry, log);
    await b.sync(full(nodeState([web(['198.18.1.1'])])));
    const before = fake.dump();
    failNext = true;
    await expect(b.sync(partial(nodeState([web(['198.18.1.2'])]), ['web']))).rejects.toMatchObject({
      code: 'SYNC_FAILED',
    });
    expect(fake.dump()).toBe(before);
    expect(await registry.metrics()).toContain(
      'kubeproxy_sync_proxy_rules_nftables_sync_failures_total{ip_family="IPv4"} 1',
    );
    const failure = log.records.find((l) => l.level === 'error');
    expect(failure?.fields).toMatchObject({
      line: 1,
      operation: expect.stringMatching(/^delete element .* of ip kpng /),
    });
    await b.sync(partial(nodeState([web(['198.18.1.2'])]), ['web'], 3));
    expect(lines(fake.lastTransaction)[1]).toBe('delete table ip kpng');
    expect(fake.findElement('ip', 'kpng', 'endpoints-tcp', ['198.19.0.1', '80', '0'])?.value).toEqual([
      '198.18.1.2',
      '8080',
    ]);
  });

  it('a transaction that hangs past writeTimeoutMs is killed: the sync fails as a write timeout, counted, and the next one rewrites', async () => {
    // A fake `nft` seam: the version probe answers, checks pass, a transaction hangs while `hang`
    // is set (until the client's timeout aborts it) and is recorded otherwise.
    let hang = false;
    const written: string[] = [];
    const execer: Execer = {
      run: (argv, stdin, signal) => {
        if (argv.includes('--version'))
          return Promise.resolve({ exitCode: 0, stdout: 'nftables v1.0.6\n', stderr: '' });
        if (argv.includes('--check') || !hang) {
          if (!argv.includes('--check')) written.push(stdin);
          return Promise.resolve({ exitCode: 0, stdout: '', stderr: '' });
        }
        return new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error)));
      },
    };
    const registry = new Registry();
    const b = new NftBackend({
      execer,
      nftShell: false,
      writeTimeoutMs: 50,
      families: ['IPv4'],
      conntrack: false,
      log: new RecordingLogger(),
      metrics: registry,
    });
    await b.sync(full(nodeState([web(['198.18.1.1'])])));
    hang = true;
    await expect(b.sync(partial(nodeState([web(['198.18.1.2'])]), ['web']))).rejects.toMatchObject({
      code: 'WRITE_TIMED_OUT',
      message: expect.stringMatching(/did not finish within 50 ms: killed/),
    });
    expect(await registry.metrics()).toContain(
      'kubeproxy_sync_proxy_rules_nftables_sync_failures_total{ip_family="IPv4"} 1',
    );
    hang = false;
    // The killed transaction applied whole or not at all: the retry drops and recreates the table.
    await b.sync(partial(nodeState([web(['198.18.1.2'])]), ['web'], 3));
    expect(written).toHaveLength(2);
    expect(written[1]).toMatch(/^delete table ip kpng$/m);
    expect(written[1]).toContain('198.18.1.2');
  });

  it('cleanup removes both tables and nothing else', async () => {
    const nft = new FakeNft();
    const other = nft.newTransaction();
    other.add({ kind: 'table', family: 'inet', name: 'someone-else' });
    await nft.run(other);
    const b = new NftBackend({ nft, conntrack: false, log: new RecordingLogger() });
    await b.sync(full(nodeState([web(['198.18.1.1', '2001:db8:1::1'])])));
    await b.cleanup();
    expect(nft.objects().map((o) => `${o.kind} ${o.family}`)).toEqual(['table inet']);
  });
});

describe('NftBackend on a big state', () => {
  it('gives the event loop turns during a full sync and a resync, and programs the same rules as in one go', async () => {
    const state = syntheticLocalState({ services: 300, endpointsPerService: 10 });
    const inOneGo = new FakeNft();
    await new NftBackend({
      nft: inOneGo,
      families: ['IPv4'],
      conntrack: false,
      log: new RecordingLogger(),
      turnBudgetMs: Number.POSITIVE_INFINITY,
    }).sync(full(state));
    const yielding = new FakeNft();
    const log = new RecordingLogger();
    const subject = new NftBackend({ nft: yielding, families: ['IPv4'], conntrack: false, log, turnBudgetMs: 0 });
    // Counts turns of the event loop while the sync runs: a health request would be served in them.
    let turns = 0;
    let syncing = true;
    const tick = (): void => {
      turns++;
      if (syncing) setImmediate(tick);
    };
    setImmediate(tick);
    await subject.sync(full(state));
    await subject.sync(full(state, 2)); // a resync of what is applied
    syncing = false;
    expect(turns).toBeGreaterThan(20);
    expect(log.records.map((r) => (r.fields as { yields?: number }).yields)).toEqual([
      expect.any(Number),
      expect.any(Number),
    ]);
    expect(yielding.dump()).toEqual(inOneGo.dump());
  });
});
