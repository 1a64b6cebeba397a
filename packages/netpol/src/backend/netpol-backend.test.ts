import { podKey, type NodeLocalState, type PolicyState, type SyncRequest, type Backend } from '@kpng/core';
import { SILENT_LOGGER } from '@kpng/core/testing';
import { FakeNft } from '@kpng/nftables/testing';
import { Registry } from 'prom-client';
import { describe, expect, test } from 'vitest';
import { podMap, TABLE } from '../render/names.js';
import { besideBackend, NetpolBackend, POLICY_SYNC_LATENCY_METRIC } from './netpol-backend.js';

const isolated: PolicyState = {
  pods: new Map([
    [
      podKey('default', 'server'),
      {
        namespace: 'default',
        name: 'server',
        ips: ['198.18.1.10'],
        ingress: { isolated: true, allow: [] },
        egress: { isolated: false, allow: [] },
      },
    ],
  ]),
  groups: new Map(),
};

const node = {
  name: 'node-1',
  labels: {},
  podCIDRs: [],
  addresses: [],
  eligible: true,
} as unknown as NodeLocalState['node'];

function request(policy: PolicyState | undefined, extra: Partial<SyncRequest> = {}, changedAt?: number): SyncRequest {
  return {
    state: { node, services: [], ...(policy ? { policy } : {}) },
    changes: {
      triggerTimes: new Map(),
      nodeChanged: false,
      ...(changedAt !== undefined ? { policyChangedAt: changedAt } : {}),
    },
    full: false,
    revision: 1,
    ...extra,
  };
}

async function isolatedPods(nft: FakeNft): Promise<string[]> {
  const map = podMap('ingress', 'IPv4');
  return (await nft.listElements(TABLE.family, TABLE.name, { map })).map((e) => e.key.join(' . '));
}

describe('NetpolBackend', () => {
  test('enforces nothing before the state carries a policy view, then the view; observes the latency', async () => {
    const nft = new FakeNft();
    const registry = new Registry();
    const backend = new NetpolBackend({ nft, log: SILENT_LOGGER, registry, now: () => 10_250 });
    await backend.sync(request(undefined, { full: true }));
    expect(nft.objects()).toEqual([]);
    await backend.sync(request(isolated, {}, 10_000));
    expect(await isolatedPods(nft)).toEqual(['198.18.1.10']);
    const text = await registry.getSingleMetricAsString(POLICY_SYNC_LATENCY_METRIC);
    expect(text).toContain(`${POLICY_SYNC_LATENCY_METRIC}_sum 0.25`);
    expect(text).toContain(`${POLICY_SYNC_LATENCY_METRIC}_count 1`);
  });

  test('a service-only change does not touch the table; a deleted table is drift, repaired by the full sync', async () => {
    const nft = new FakeNft();
    const backend = new NetpolBackend({ nft, log: SILENT_LOGGER });
    await backend.sync(request(isolated, { full: true }));
    const written = nft.lastTransaction;
    await backend.sync(request(isolated));
    expect(nft.lastTransaction).toBe(written);
    expect(await backend.check()).toEqual([]);

    const tx = nft.newTransaction();
    tx.delete({ kind: 'table', family: TABLE.family, name: TABLE.name });
    await nft.run(tx);
    expect(await backend.check()).toEqual(['table']);
    expect(await backend.sync(request(isolated, { full: true }))).toEqual({ repaired: ['table'] });
    expect(await isolatedPods(nft)).toEqual(['198.18.1.10']);
  });

  test('beside a service backend: both sync; a failure of either fails the sync after both ran', async () => {
    const nft = new FakeNft();
    const calls: string[] = [];
    let failMain = true;
    const main: Backend = {
      name: 'svc',
      families: ['IPv4'],
      sync: async () => {
        calls.push('svc');
        if (failMain) throw new Error('svc failed');
      },
      cleanup: async () => void calls.push('svc cleanup'),
    };
    const both = besideBackend(main, new NetpolBackend({ nft, log: SILENT_LOGGER }));
    expect(both.name).toBe('svc+netpol');
    await expect(both.sync(request(isolated, { full: true }))).rejects.toThrow('svc failed');
    expect(await isolatedPods(nft)).toEqual(['198.18.1.10']);
    failMain = false;
    await both.sync(request(isolated, { full: true }));
    await both.cleanup();
    expect(calls).toEqual(['svc', 'svc', 'svc cleanup']);
    expect(nft.objects()).toEqual([]);
  });

  test("beside a service backend: the loop's retry after a failure is a full sync of the failed one only", async () => {
    const seen: Record<string, boolean[]> = { svc: [], netpol: [] };
    const fails: Record<string, boolean> = { svc: false, netpol: false };
    const fake = (name: string): Backend => ({
      name,
      families: ['IPv4'],
      sync: async (req) => {
        seen[name]?.push(req.full);
        if (fails[name]) throw new Error(`${name} failed`);
      },
      cleanup: async () => {},
    });
    const both = besideBackend(fake('svc'), fake('netpol'));
    await both.sync(request(isolated, { full: true }));
    fails['netpol'] = true;
    await expect(both.sync(request(isolated))).rejects.toThrow('netpol failed');
    fails['netpol'] = false;
    // The loop retries with a full sync: the service backend, which did not fail, syncs incrementally.
    await both.sync(request(isolated, { full: true }));
    fails['svc'] = true;
    await expect(both.sync(request(isolated))).rejects.toThrow('svc failed');
    fails['svc'] = false;
    await both.sync(request(isolated, { full: true }));
    // Past the retries, a full sync (periodic, node change) reaches both again.
    await both.sync(request(isolated, { full: true }));
    expect(seen).toEqual({
      svc: [true, false, false, false, true, true],
      netpol: [true, false, true, false, false, true],
    });
    // The service backend's nodePortAddresses declaration goes with it (the sync stage resolves them for it).
    const nodePorts = { addresses: ['primary'] };
    expect(besideBackend({ ...fake('svc'), nodePorts }, fake('netpol')).nodePorts).toBe(nodePorts);
  });
});
