import type { NodeLocalState, SyncRequest } from '@kpng/core';
import { clusterIPs, nodeState, on, POD } from '@kpng/core/testing';
import { FakeNft } from '@kpng/nftables/testing';
import { Transaction, type NftObject } from '@kpng/nftables';
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeIpvs } from '../ipvs/fake-ipvs.js';
import { VS4 } from '../ipvs/ipvs-cases.js';
import type { VirtualServer } from '../ipvs/types.js';
import { FakeHostExecer } from '../../test/support/fake-host.js';
import { IpvsBackend } from './ipvs-backend.js';

const sync = (state: NodeLocalState, full: boolean, revision = 1): SyncRequest => ({
  state,
  changes: { triggerTimes: new Map(), nodeChanged: false },
  full,
  revision,
});
const STATE = nodeState([
  { name: 'web', clusterIPs: clusterIPs(10), endpoints: on('a', 'b') },
  { name: 'dns', clusterIPs: clusterIPs(11), ports: [{ port: 53, protocol: 'UDP' }], endpoints: on('a') },
]);
/** web's IPv4 ClusterIP virtual server. */
const WEB = VS4;
const table = { kind: 'table', family: 'ip', name: 'kpng-ipvs' } as const satisfies NftObject;
const t = { family: 'ip', table: 'kpng-ipvs' } as const;

/** Counts the real-server reads (one netlink call each on the kernel). */
class CountingIpvs extends FakeIpvs {
  reads = 0;
  override listRealServers(vs: VirtualServer): ReturnType<FakeIpvs['listRealServers']> {
    this.reads++;
    return super.listRealServers(vs);
  }
}

/** Another program flushes every virtual server while the check reads the real servers of the first one. */
class FlushedMidCheck extends FakeIpvs {
  armed = false;
  override listRealServers(vs: VirtualServer): ReturnType<FakeIpvs['listRealServers']> {
    if (this.armed) {
      this.armed = false;
      this.flush();
    }
    return super.listRealServers(vs);
  }
}

interface World {
  readonly kernel: FakeIpvs;
  readonly host: FakeHostExecer;
  readonly nft: FakeNft;
}
const nftRun = (nft: FakeNft, queue: (tx: Transaction) => void): Promise<void> => {
  const tx = new Transaction();
  queue(tx);
  return nft.run(tx);
};

/** What another program does behind the backend's back, and the kind `check` reports for it. */
const CASES: readonly { name: string; kind: string; run: (w: World) => Promise<void> | void }[] = [
  {
    name: 'ipvsadm -D: one virtual server deleted',
    kind: 'virtual-server',
    run: (w) => w.kernel.deleteVirtualServer(WEB),
  },
  { name: 'ipvsadm -C: every virtual server flushed', kind: 'virtual-server', run: (w) => w.kernel.flush() },
  {
    name: 'ipvsadm -E: the scheduler changed',
    kind: 'virtual-server',
    run: (w) => w.kernel.updateVirtualServer({ ...WEB, scheduler: 'lc' }),
  },
  {
    name: 'ipvsadm -d: one real server deleted',
    kind: 'real-server',
    run: (w) => w.kernel.deleteRealServer(WEB, { address: POD.b.v4, port: 8080, weight: 1 }),
  },
  {
    name: 'ipvsadm -e -w 0: one real server quiesced',
    kind: 'real-server',
    run: (w) => w.kernel.updateRealServer(WEB, { address: POD.b.v4, port: 8080, weight: 0 }),
  },
  {
    name: 'ip addr del: a ClusterIP removed from kube-ipvs0',
    kind: 'address',
    run: (w) => void w.host.run(['ip', '-batch', '-'], 'addr del 198.19.0.10/32 dev kube-ipvs0\n'),
  },
  {
    name: 'ip link del kube-ipvs0',
    kind: 'link',
    run: (w) => void w.host.run(['ip', 'link', 'del', 'kube-ipvs0'], ''),
  },
  { name: 'ip link set kube-ipvs0 down', kind: 'link', run: (w) => void (w.host.up = false) },
  { name: 'nft delete table ip kpng-ipvs', kind: 'nft-table', run: (w) => nftRun(w.nft, (tx) => tx.delete(table)) },
  {
    name: 'nft flush set ip kpng-ipvs service_ports',
    kind: 'nft-set',
    run: (w) =>
      nftRun(w.nft, (tx) =>
        tx.flush({ kind: 'set', ...t, name: 'service_ports', type: 'ipv4_addr . inet_proto . inet_service' }),
      ),
  },
  {
    name: 'nft delete chain ip kpng-ipvs input',
    kind: 'nft-chain',
    run: (w) =>
      nftRun(w.nft, (tx) => {
        const chain = { kind: 'chain', ...t, name: 'input' } as const satisfies NftObject;
        tx.flush(chain);
        tx.delete(chain);
      }),
  },
];

describe('IpvsBackend drift (FakeIpvs, FakeNft, fake ip)', () => {
  let world: World;
  let backend: IpvsBackend;
  const snapshot = () => ({
    ipvs: world.kernel
      .listVirtualServers()
      .map((vs) =>
        JSON.stringify([
          vs,
          world.kernel
            .listRealServers(vs)
            .map((rs) => JSON.stringify(rs))
            .sort(),
        ]),
      )
      .sort(),
    addresses: [...world.host.addresses].sort(),
    link: [world.host.link, world.host.up],
    nft: world.nft.dump(),
  });
  beforeEach(async () => {
    world = { kernel: new FakeIpvs(), host: new FakeHostExecer(), nft: new FakeNft() };
    backend = new IpvsBackend({ ...world, execer: world.host, drainIntervalMs: 3_600_000 });
    await backend.setup();
  });

  it('before a first sync there is nothing to check; after it, an intact kernel is no drift and nothing is written', async () => {
    expect(await backend.check()).toEqual([]);
    await backend.sync(sync(STATE, true));
    const before = snapshot();
    const written = world.nft.lastTransaction;
    world.kernel.calls.length = 0;
    expect(await backend.check()).toEqual([]);
    expect(world.kernel.calls).toEqual([]);
    expect(world.nft.lastTransaction).toBe(written);
    expect(snapshot()).toEqual(before);
  });

  it.each(CASES)(
    '$name: check reports $kind; the full sync repairs it and reports it repaired',
    async ({ run, kind }) => {
      await backend.sync(sync(STATE, true));
      const before = snapshot();
      await run(world);
      expect(snapshot()).not.toEqual(before);
      expect(await backend.check()).toEqual([kind]);
      // A partial sync (the drain timer's) neither repairs nor reports it; the full sync does both.
      expect(await backend.sync(sync(STATE, false, 2))).toEqual({});
      expect(await backend.sync(sync(STATE, true, 3))).toEqual({ repaired: [kind] });
      expect(snapshot()).toEqual(before);
      expect(await backend.check()).toEqual([]);
    },
  );

  it('a failed repair keeps the drift for the next full sync', async () => {
    await backend.sync(sync(STATE, true));
    world.kernel.flush();
    expect(await backend.check()).toEqual(['virtual-server']);
    world.kernel.failNext('addVirtualServer', 12);
    await expect(backend.sync(sync(STATE, true, 2))).rejects.toThrow();
    expect(await backend.check()).toEqual([]); // nothing is believed applied: the retry rewrites anyway
    expect(await backend.sync(sync(STATE, true, 3))).toEqual({ repaired: ['virtual-server'] });
  });

  it('ipvsadm -C between the virtual-server dump and a real-server read is a virtual-server drift, not a real-server one', async () => {
    const kernel = new FlushedMidCheck();
    world = { ...world, kernel };
    backend = new IpvsBackend({ ...world, execer: world.host, drainIntervalMs: 3_600_000 });
    await backend.setup();
    await backend.sync(sync(STATE, true));
    kernel.armed = true;
    expect(await backend.check()).toEqual(['virtual-server']);
    expect(kernel.armed).toBe(false); // the flush did happen inside the check
    expect(await backend.sync(sync(STATE, true, 2))).toEqual({ repaired: ['virtual-server'] });
    expect(await backend.check()).toEqual([]);
    await backend.close();
  });

  it('real servers are read for a window of virtual servers per check, in turn', async () => {
    const counting = new CountingIpvs();
    world = { ...world, kernel: counting };
    backend = new IpvsBackend({ ...world, execer: world.host, driftWindow: 1 });
    await backend.setup();
    await backend.sync(sync(STATE, true));
    const count = world.kernel.listVirtualServers().length; // web and dns, IPv4 and IPv6
    world.kernel.deleteRealServer(WEB, { address: POD.b.v4, port: 8080, weight: 1 });
    const found: string[][] = [];
    counting.reads = 0;
    for (let i = 0; i < count; i++) found.push([...(await backend.check())]);
    expect(counting.reads).toBe(count);
    expect(found.filter((kinds) => kinds.includes('real-server'))).toHaveLength(1);
    await backend.close();
  });
});
