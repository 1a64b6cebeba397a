import { podKey, type PodPolicy, type PolicyState } from '@kpng/core';
import { SILENT_LOGGER } from '@kpng/core/testing';
import { FakeNft } from '@kpng/nftables/testing';
import type { Transaction } from '@kpng/nftables';
import { describe, expect, test } from 'vitest';
import { setNames, TABLE } from '../render/names.js';
import { NetpolEnforcer } from './enforcer.js';

function state(...pods: readonly (readonly [ip: string, ingress: PodPolicy['ingress']])[]): PolicyState {
  return {
    pods: new Map(
      pods.map(([ip, ingress], i) => [
        podKey('default', `p${i}`),
        { namespace: 'default', name: `p${i}`, ips: [ip], ingress, egress: { isolated: false, allow: [] } },
      ]),
    ),
  };
}

const fromClient = {
  isolated: true,
  allow: [{ peers: ['198.18.1.11'], ports: [{ protocol: 'TCP', port: 80, endPort: 80 }] }],
} as const;
const fromOther = {
  isolated: true,
  allow: [{ peers: ['198.18.1.12'], ports: [{ protocol: 'TCP', port: 80, endPort: 80 }] }],
} as const;

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

describe('NetpolEnforcer', () => {
  const ports = setNames('ingress', 'IPv4').exactPorts;

  test('the first sync writes the table; later ones only the changed elements', async () => {
    const nft = new FakeNft();
    const enforcer = new NetpolEnforcer({ nft, log: SILENT_LOGGER });
    expect(await enforcer.sync(state(['198.18.1.10', fromClient]))).toEqual({ full: true, added: 2, deleted: 0 });
    expect(await elements(nft, ports)).toEqual(['198.18.1.10 . 198.18.1.11 . tcp . 80']);

    expect(await enforcer.sync(state(['198.18.1.10', fromOther]))).toEqual({ full: false, added: 1, deleted: 1 });
    expect(nft.lastTransaction?.operations.map((op) => `${op.verb} ${op.object.kind}`)).toEqual([
      'delete element',
      'add element',
    ]);
    expect(await elements(nft, ports)).toEqual(['198.18.1.10 . 198.18.1.12 . tcp . 80']);

    const before = nft.lastTransaction;
    expect(await enforcer.sync(state(['198.18.1.10', fromOther]))).toEqual({ full: false, added: 0, deleted: 0 });
    expect(nft.lastTransaction).toBe(before);
  });

  test('after a failed sync the next one rewrites the table', async () => {
    const nft = new FailingOnce();
    const enforcer = new NetpolEnforcer({ nft, log: SILENT_LOGGER });
    await enforcer.sync(state(['198.18.1.10', fromClient]));
    nft.fail = true;
    await expect(enforcer.sync(state(['198.18.1.10', fromOther]))).rejects.toThrow('injected failure');
    expect(await elements(nft, ports)).toEqual(['198.18.1.10 . 198.18.1.11 . tcp . 80']);
    expect(await enforcer.sync(state(['198.18.1.10', fromOther]))).toMatchObject({ full: true });
    expect(await elements(nft, ports)).toEqual(['198.18.1.10 . 198.18.1.12 . tcp . 80']);
  });

  test('cleanup removes the table', async () => {
    const nft = new FakeNft();
    const enforcer = new NetpolEnforcer({ nft, log: SILENT_LOGGER });
    await enforcer.sync(state());
    await enforcer.cleanup();
    expect(nft.objects()).toEqual([]);
  });
});
