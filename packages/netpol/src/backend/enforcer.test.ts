import { podKey, type PeerGroup, type PeerGroupKey, type PodPolicy, type PolicyState } from '@kpng/core';
import { SILENT_LOGGER } from '@kpng/core/testing';
import { FakeNft } from '@kpng/nftables/testing';
import type { Transaction } from '@kpng/nftables';
import { describe, expect, test } from 'vitest';
import { podMap, TABLE } from '../render/names.js';
import { NetpolEnforcer } from './enforcer.js';

const CLIENTS = 'default/allow/Ingress/0' as PeerGroupKey;

function state(
  ips: readonly string[],
  ingress: PodPolicy['ingress'],
  ...others: readonly (readonly [string, PodPolicy['ingress']])[]
): PolicyState {
  const pods = [['198.18.1.10', ingress] as const, ...others].map(
    ([ip, policy], i) =>
      [
        podKey('default', `p${i}`),
        { namespace: 'default', name: `p${i}`, ips: [ip], ingress: policy, egress: { isolated: false, allow: [] } },
      ] as const,
  );
  const group: PeerGroup = { kind: 'ips', ips };
  return { pods: new Map(pods), groups: new Map([[CLIENTS, group]]) };
}

const fromClients: PodPolicy['ingress'] = {
  isolated: true,
  allow: [{ peers: { group: CLIENTS, cidrs: [] }, ports: [{ protocol: 'TCP', port: 80, endPort: 80 }] }],
};
const fromClientsAnyPort: PodPolicy['ingress'] = { isolated: true, allow: [{ peers: { group: CLIENTS, cidrs: [] } }] };

/** A FakeNft whose next run fails once. */
class FailingOnce extends FakeNft {
  fail = false;
  override async run(tx: Transaction): Promise<void> {
    if (this.fail) {
      this.fail = false;
      throw new Error('injected failure');
    }
    return super.run(tx);
  }
}

async function elements(nft: FakeNft, set: string): Promise<string[]> {
  return (await nft.listElements(TABLE.family, TABLE.name, { set })).map((e) => e.key.join(' . ')).sort();
}

function operations(nft: FakeNft): string[] {
  return (nft.lastTransaction?.operations ?? []).map((op) => `${op.verb} ${op.object.kind}`);
}

describe('NetpolEnforcer', () => {
  const group = 'group-0-v4';

  test('the first sync writes the table; a peer change is only its group elements', async () => {
    const nft = new FakeNft();
    const enforcer = new NetpolEnforcer({ nft, log: SILENT_LOGGER, families: ['IPv4'] });
    expect(await enforcer.sync(state(['198.18.1.11'], fromClients))).toMatchObject({ full: true, deleted: 0 });
    expect(await elements(nft, group)).toEqual(['198.18.1.11']);

    expect(await enforcer.sync(state(['198.18.1.12'], fromClients))).toEqual({ full: false, added: 1, deleted: 1 });
    expect(operations(nft)).toEqual(['delete element', 'add element']);
    expect(await elements(nft, group)).toEqual(['198.18.1.12']);

    const before = nft.lastTransaction;
    const same = state(['198.18.1.12'], fromClients);
    expect(await enforcer.sync(same)).toEqual({ full: false, added: 0, deleted: 0 });
    expect(nft.lastTransaction).toBe(before);
  });

  test('pods with one allow list share a chain; a new list is a new chain and a map element', async () => {
    const nft = new FakeNft();
    const enforcer = new NetpolEnforcer({ nft, log: SILENT_LOGGER, families: ['IPv4'] });
    await enforcer.sync(state(['198.18.1.11'], fromClients, ['198.18.1.20', fromClients]));
    const map = await nft.listElements(TABLE.family, TABLE.name, { map: podMap('ingress', 'IPv4') });
    expect(map.map((e) => `${e.key.join('')} ${e.value?.join('')}`).sort()).toEqual([
      '198.18.1.10 jump ingress-1',
      '198.18.1.20 jump ingress-1',
    ]);
    await enforcer.sync(state(['198.18.1.11'], fromClientsAnyPort, ['198.18.1.20', fromClients]));
    expect(operations(nft)).toEqual(['delete element', 'add chain', 'add rule', 'add rule', 'add element']);
    await enforcer.sync(state(['198.18.1.11'], fromClientsAnyPort, ['198.18.1.20', fromClientsAnyPort]));
    // The last pod left the first chain: it goes.
    expect(operations(nft)).toEqual(['delete element', 'flush chain', 'delete chain', 'add element']);
  });

  test("one chain holds both families' rules, one rule per peer and port: no anonymous set", async () => {
    const nft = new FakeNft();
    const enforcer = new NetpolEnforcer({ nft, log: SILENT_LOGGER });
    const ports = [80, 8080, 9000].map((port) => ({
      protocol: 'TCP' as const,
      port,
      endPort: port === 9000 ? 9010 : port,
    }));
    const policy: PodPolicy['ingress'] = {
      isolated: true,
      allow: [{ peers: { group: CLIENTS, cidrs: ['203.0.113.0/25'] }, ports }],
    };
    const dualStack: PolicyState = {
      pods: new Map([
        [
          podKey('default', 'p0'),
          {
            namespace: 'default',
            name: 'p0',
            ips: ['198.18.1.10', '2001:db8::10'],
            ingress: policy,
            egress: { isolated: false, allow: [] },
          },
        ],
      ]),
      groups: new Map([[CLIENTS, { kind: 'ips', ips: ['198.18.1.11', '2001:db8::11'] }]]),
    };
    await enforcer.sync(dualStack);
    const jumps = await Promise.all(
      (['IPv4', 'IPv6'] as const).map(async (f) =>
        (await nft.listElements(TABLE.family, TABLE.name, { map: podMap('ingress', f) })).map((e) => e.value?.join('')),
      ),
    );
    expect(jumps).toEqual([['jump ingress-1'], ['jump ingress-1']]);
    const rules = nft
      .objects()
      .filter((o) => o.kind === 'rule' && o.chain === 'ingress-1')
      .map((o) => (o as { rule: string }).rule);
    const dports = ['th dport 80', 'th dport 8080', 'th dport 9000-9010'];
    expect(rules).toEqual([
      ...dports.map((d) => `ip saddr @group-0-v4 meta l4proto tcp ${d} accept`),
      ...dports.map((d) => `ip saddr 203.0.113.0-203.0.113.127 meta l4proto tcp ${d} accept`),
      ...dports.map((d) => `ip6 saddr @group-0-v6 meta l4proto tcp ${d} accept`),
      'counter drop',
    ]);
    expect(nft.objects().filter((o) => o.kind === 'chain')).toHaveLength(2); // forward, ingress-1
  });

  test('after a failed sync the next one rewrites the table', async () => {
    const nft = new FailingOnce();
    const enforcer = new NetpolEnforcer({ nft, log: SILENT_LOGGER, families: ['IPv4'] });
    await enforcer.sync(state(['198.18.1.11'], fromClients));
    nft.fail = true;
    await expect(enforcer.sync(state(['198.18.1.12'], fromClients))).rejects.toThrow('injected failure');
    expect(await elements(nft, group)).toEqual(['198.18.1.11']);
    expect(await enforcer.sync(state(['198.18.1.12'], fromClients))).toMatchObject({ full: true });
    expect(await elements(nft, 'group-2-v4')).toEqual(['198.18.1.12']);
  });

  test('cleanup removes the table', async () => {
    const nft = new FakeNft();
    const enforcer = new NetpolEnforcer({ nft, log: SILENT_LOGGER });
    await enforcer.sync({ pods: new Map(), groups: new Map() });
    await enforcer.cleanup();
    expect(nft.objects()).toEqual([]);
  });
});
