import type { NodeLocalState, SyncRequest } from '@kpng/core';
import { RecordingLogger } from '@kpng/core/testing';
import { describe, expect, it } from 'vitest';
import type { Transaction } from '@kpng/nftables';
import { FakeNft } from '@kpng/nftables/testing';
import { nodeState, type ServiceFixture } from '../testing/fixtures.js';
import { NftBackend } from './nft-backend.js';

const web: ServiceFixture = {
  name: 'web',
  clusterIPs: ['198.19.0.1'],
  ports: [{ port: 80, nodePort: 30080 }],
  endpoints: [{ ip: '198.18.1.1' }, { ip: '198.18.1.2' }],
};
const db: ServiceFixture = { name: 'db', clusterIPs: ['198.19.0.2'], endpoints: [{ ip: '198.18.1.9' }] };
const state = nodeState([web, db]);

function full(s: NodeLocalState, revision: number): SyncRequest {
  return { state: s, changes: { triggerTimes: new Map(), nodeChanged: false }, full: true, revision };
}

/** Another program changing the kernel: one transaction on the fake. */
async function vandal(nft: FakeNft, write: (tx: Transaction) => void): Promise<void> {
  const tx = nft.newTransaction();
  write(tx);
  await nft.run(tx);
}

const table = { kind: 'table', family: 'ip', name: 'kpng' } as const;
const chain = (name: string) => ({ kind: 'chain', family: 'ip', table: 'kpng', name }) as const;

const cases: ReadonlyArray<{ name: string; kind: string; write: (tx: Transaction) => void }> = [
  { name: 'the table deleted (or `nft flush ruleset`)', kind: 'table', write: (tx) => tx.delete(table) },
  {
    name: 'the canary set flushed',
    kind: 'table',
    write: (tx) => tx.flush({ kind: 'set', family: 'ip', table: 'kpng', name: 'resync-canary' }),
  },
  {
    name: 'one base chain deleted',
    kind: 'chain',
    write: (tx) => {
      tx.flush(chain('nat-output'));
      tx.delete(chain('nat-output'));
    },
  },
];

describe('NftBackend drift (another program changed our table)', () => {
  it('check() finds nothing on an intact table, and writes nothing', async () => {
    const nft = new FakeNft();
    const b = new NftBackend({ nft, families: ['IPv4'], conntrack: false, log: new RecordingLogger() });
    expect(await b.check()).toEqual([]); // before any sync: nothing to probe
    await b.sync(full(state, 1));
    const before = nft.dump();
    const written = nft.lastTransaction;
    expect(await b.check()).toEqual([]);
    expect(nft.dump()).toBe(before);
    expect(nft.lastTransaction).toBe(written);
  });

  it.each(cases)('check() finds $name; the next full sync rewrites and reports it', async ({ kind, write }) => {
    const nft = new FakeNft();
    const b = new NftBackend({ nft, families: ['IPv4'], conntrack: false, log: new RecordingLogger() });
    await b.sync(full(state, 1));
    const intact = nft.dump();
    await vandal(nft, write);
    expect(nft.dump()).not.toBe(intact);
    expect(await b.check()).toEqual([kind]);
    expect(await b.sync(full(state, 2))).toEqual({ repaired: [kind] });
    expect(nft.dump()).toBe(intact);
    expect(await b.check()).toEqual([]);
    expect(await b.sync(full(state, 3))).toEqual({});
  });

  it('a full resync finds a deleted map element (no check sees it) and rewrites', async () => {
    const nft = new FakeNft();
    const b = new NftBackend({ nft, families: ['IPv4'], conntrack: false, log: new RecordingLogger() });
    await b.sync(full(state, 1));
    const intact = nft.dump();
    const element = nft.findElement('ip', 'kpng', 'service-ips', ['198.19.0.1', 'tcp', '80']);
    expect(element).toBeDefined();
    await vandal(nft, (tx) => tx.delete(element!));
    expect(await b.check()).toEqual([]); // element-level drift is the full resync's to find
    expect(await b.sync(full(state, 2))).toEqual({ repaired: ['element'] });
    expect(nft.dump()).toBe(intact);
    expect(await b.sync(full(state, 3))).toEqual({});
  });
});
