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
      '198.18.1.10 jump ingress-1-v4',
      '198.18.1.20 jump ingress-1-v4',
    ]);
    await enforcer.sync(state(['198.18.1.11'], fromClientsAnyPort, ['198.18.1.20', fromClients]));
    expect(operations(nft)).toEqual(['delete element', 'add chain', 'add rule', 'add rule', 'add element']);
    await enforcer.sync(state(['198.18.1.11'], fromClientsAnyPort, ['198.18.1.20', fromClientsAnyPort]));
    // The last pod left the first chain: it goes.
    expect(operations(nft)).toEqual(['delete element', 'flush chain', 'delete chain', 'add element']);
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
