import {
  fullSyncRequest,
  nodeState,
  OTHER_NODE,
  partialSyncRequest,
  RecordingLogger,
  type ServiceFixture,
} from '@kpng/core/testing';
import type { Backend, DriftKinds, SyncRequest } from '@kpng/core';
import { Registry } from 'prom-client';
import { beforeEach, describe, expect, it } from 'vitest';
import { decodeLb, endpointKey, endpointValue, LB_REJECT, LB_UNREACHABLE, serviceKey } from '../maps/layout.js';
import { FakeKernel } from '../../test/support/fake-kernel.js';
import { EbpfBackend, grownSize, MapFullError } from './ebpf-backend.js';

const web = (endpoints: readonly string[], extra: Partial<ServiceFixture> = {}): ServiceFixture => ({
  name: 'web',
  clusterIPs: ['198.19.0.10', '2001:db8:5e::10'],
  endpoints: endpoints.map((ip) => ({ ip })),
  ...extra,
});

/** The lb a services4/6 key resolves to, and its endpoints as "ip:port" text. */
function resolve(kernel: FakeKernel, family: 'IPv4' | 'IPv6', ip: string, port: number, proto: 'TCP' | 'UDP' = 'TCP') {
  const map = family === 'IPv4' ? kernel.maps.services4 : kernel.maps.services6;
  const raw = map.data.get(serviceKey(family, ip, port, proto).toString('hex'));
  if (raw === undefined) return undefined;
  const lb = decodeLb(raw);
  const endpoints: string[] = [];
  for (let i = 0; i < lb.count; i++) {
    const ep = kernel.maps.endpoints.data.get(endpointKey(lb.id, i).toString('hex'));
    if (ep === undefined) throw new Error(`lb ${lb.id} index ${i} missing`);
    endpoints.push(ep.toString('hex'));
  }
  return { ...lb, endpoints };
}

const ep = (family: 'IPv4' | 'IPv6', ip: string, port = 8080) => endpointValue(family, ip, port).toString('hex');

describe('EbpfBackend (fake maps)', () => {
  let kernel: FakeKernel;
  let backend: EbpfBackend;
  let logger: RecordingLogger;
  beforeEach(async () => {
    kernel = new FakeKernel();
    logger = new RecordingLogger();
    // A check reads a whole pass at once here; the sliced check has its own test.
    backend = new EbpfBackend({ cgroup: '/unused', kernel, logger, checkSliceMs: Number.POSITIVE_INFINITY });
    await backend.setup();
  });

  it('a ClusterIP resolves to core internal endpoints, per family', async () => {
    await backend.sync(fullSyncRequest(nodeState([web(['198.18.1.10', '198.18.1.11', '2001:db8:1::10'])])));
    expect(resolve(kernel, 'IPv4', '198.19.0.10', 80)).toMatchObject({
      count: 2,
      flags: 0,
      affinitySeconds: 0,
      endpoints: [ep('IPv4', '198.18.1.10'), ep('IPv4', '198.18.1.11')],
    });
    expect(resolve(kernel, 'IPv6', '2001:db8:5e::10', 80)?.endpoints).toEqual([ep('IPv6', '2001:db8:1::10')]);
    expect(resolve(kernel, 'IPv4', '198.19.0.10', 80, 'UDP')).toBeUndefined();
  });

  it('no endpoint anywhere: REJECT; endpoints but none this node may use: UNREACHABLE', async () => {
    await backend.sync(
      fullSyncRequest(
        nodeState([
          web([]),
          {
            name: 'local',
            clusterIPs: ['198.19.0.11'],
            internalLocal: true,
            endpoints: [{ ip: '198.18.2.10', node: OTHER_NODE }],
          },
        ]),
      ),
    );
    expect(resolve(kernel, 'IPv4', '198.19.0.10', 80)).toMatchObject({ count: 0, flags: LB_REJECT });
    expect(resolve(kernel, 'IPv4', '198.19.0.11', 80)).toMatchObject({ count: 0, flags: LB_UNREACHABLE });
  });

  it('external and LB IPs share one lb; with externalTrafficPolicy Local, local traffic uses the cluster list', async () => {
    const svc = web([], {
      externalIPs: ['203.0.113.10'],
      loadBalancerIPs: ['203.0.113.70'],
      externalLocal: true,
      endpoints: [{ ip: '198.18.1.10' }, { ip: '198.18.2.10', node: OTHER_NODE }],
    });
    await backend.sync(fullSyncRequest(nodeState([svc])));
    const ext = resolve(kernel, 'IPv4', '203.0.113.10', 80);
    expect(ext?.endpoints).toEqual([ep('IPv4', '198.18.1.10'), ep('IPv4', '198.18.2.10')]);
    expect(resolve(kernel, 'IPv4', '203.0.113.70', 80)).toEqual(ext);
    expect(resolve(kernel, 'IPv4', '198.19.0.10', 80)?.id).not.toBe(ext?.id);
  });

  it('LB IPs of a Service with loadBalancerSourceRanges are not balanced at the socket (its external IPs are)', async () => {
    const svc = web(['198.18.1.10'], {
      externalIPs: ['203.0.113.10'],
      loadBalancerIPs: ['203.0.113.70'],
      sourceRanges: ['203.0.113.0/28'],
    });
    await backend.sync(fullSyncRequest(nodeState([svc])));
    expect(resolve(kernel, 'IPv4', '203.0.113.70', 80)).toBeUndefined();
    expect(resolve(kernel, 'IPv4', '203.0.113.10', 80)?.count).toBe(1);
  });

  it('session affinity, UDP ports; SCTP ports are left alone', async () => {
    const svc = web(['198.18.1.10'], {
      affinity: 600,
      ports: [
        { port: 53, protocol: 'UDP' },
        { port: 5000, protocol: 'SCTP' },
      ],
    });
    await backend.sync(fullSyncRequest(nodeState([svc])));
    expect(resolve(kernel, 'IPv4', '198.19.0.10', 53, 'UDP')).toMatchObject({ count: 1, affinitySeconds: 600 });
    expect(kernel.maps.services4.data.size).toBe(1);
  });

  it('an endpoint change among 1000 Services writes only the changed elements', async () => {
    const services = (changed: string) =>
      Array.from({ length: 1000 }, (_, i) => ({
        name: `s${i}`,
        clusterIPs: [`198.19.${i >> 8}.${i & 255}`],
        endpoints: [{ ip: '198.18.1.10' }, { ip: i === 7 ? changed : '198.18.1.11' }],
      }));
    await backend.sync(fullSyncRequest(nodeState(services('198.18.1.11'))));
    const before = kernel.writes();
    await backend.sync(partialSyncRequest(nodeState(services('198.18.1.12')), ['s7'], 2));
    expect(kernel.writes() - before).toBe(1);
    expect(resolve(kernel, 'IPv4', '198.19.0.7', 80)?.endpoints).toContain(ep('IPv4', '198.18.1.12'));
  });

  it('a full sync of 1000 Services gives the event loop turns; a check() meanwhile waits for the whole sync', async () => {
    const kernel = new FakeKernel();
    const logger = new RecordingLogger();
    const backend = new EbpfBackend({ cgroup: '/unused', kernel, logger, turnBudgetMs: 0 });
    await backend.setup();
    const services = Array.from({ length: 1000 }, (_, i) => ({
      name: `s${i}`,
      clusterIPs: [`198.19.${i >> 8}.${i & 255}`],
      endpoints: [{ ip: '198.18.1.10' }, { ip: '198.18.1.11' }],
    }));
    let ticks = 0;
    let ticking = true;
    const tick = (): void => {
      ticks++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const sync = backend.sync(fullSyncRequest(nodeState(services)));
    const check = backend.check();
    await sync;
    const ticksDuringSync = ticks;
    ticking = false;
    // Render (1000 Services), diff (3000 elements): a turn every 16 steps at a budget of 0 ms.
    expect(ticksDuringSync).toBeGreaterThan(100);
    const synced = logger.records.find((r) => r.msg === 'synced ebpf maps');
    expect(synced?.fields['turns']).toBeGreaterThan(100);
    // The check was queued behind the sync: it compares the maps with the whole sync's picture.
    expect(await check).toEqual([]);
    expect(kernel.maps.services4.data.size).toBe(1000);
    expect(kernel.maps.endpoints.data.size).toBe(2000);
  });

  it('growing writes endpoints before the count; shrinking lowers the count before deleting the tail', async () => {
    await backend.sync(fullSyncRequest(nodeState([web(['198.18.1.10'])])));
    kernel.journal.length = 0;
    await backend.sync(partialSyncRequest(nodeState([web(['198.18.1.10', '198.18.1.11'])]), ['web'], 2));
    expect(kernel.journal).toEqual(['endpoints update', 'services4 update']);
    kernel.journal.length = 0;
    await backend.sync(partialSyncRequest(nodeState([web(['198.18.1.11'])]), ['web'], 3));
    expect(kernel.journal).toEqual(['endpoints update', 'services4 update', 'endpoints delete']);
    expect(resolve(kernel, 'IPv4', '198.19.0.10', 80)?.endpoints).toEqual([ep('IPv4', '198.18.1.11')]);
    expect(kernel.maps.endpoints.data.size).toBe(1);
  });

  it('a deleted Service leaves nothing; its id is reused only by a later sync', async () => {
    await backend.sync(fullSyncRequest(nodeState([web(['198.18.1.10'], { clusterIPs: ['198.19.0.10'] })])));
    const id = resolve(kernel, 'IPv4', '198.19.0.10', 80)!.id;
    await backend.sync(partialSyncRequest(nodeState([]), ['web'], 2));
    expect(kernel.maps.services4.data.size + kernel.maps.endpoints.data.size).toBe(0);
    const other = { name: 'other', clusterIPs: ['198.19.0.20'], endpoints: [{ ip: '198.18.1.20' }] };
    await backend.sync(partialSyncRequest(nodeState([other]), ['other'], 3));
    expect(resolve(kernel, 'IPv4', '198.19.0.20', 80)?.id).toBe(id);
  });

  it('a refused write fails the sync, counted; the full retry converges from what the maps hold', async () => {
    const registry = new Registry();
    backend = new EbpfBackend({ cgroup: '/unused', kernel, logger, metrics: registry });
    await backend.sync(fullSyncRequest(nodeState([web(['198.18.1.10'])])));
    kernel.maps.services4.failNext = new Error('update services4: ENOMEM');
    const next = nodeState([web(['198.18.1.11']), { name: 'b', clusterIPs: ['198.19.0.11'], endpoints: [] }]);
    await expect(backend.sync(partialSyncRequest(next, ['web', 'b'], 2))).rejects.toThrow(/ENOMEM/);
    expect(backend.applied()).toBeUndefined();
    expect(await registry.getSingleMetricAsString('kpng_ebpf_map_write_failures_total')).toContain(
      'kpng_ebpf_map_write_failures_total{map="services4"} 1',
    );
    await backend.sync(fullSyncRequest(next, 3));
    expect(resolve(kernel, 'IPv4', '198.19.0.10', 80)?.endpoints).toEqual([ep('IPv4', '198.18.1.11')]);
    expect(resolve(kernel, 'IPv4', '198.19.0.11', 80)?.flags).toBe(LB_REJECT);
    expect(kernel.maps.endpoints.data.size).toBe(1);
  });

  it('check() finds what another program changed; the full sync repairs it and reports the kinds', async () => {
    const state = nodeState([web(['198.18.1.10', '2001:db8:1::10'])]);
    await backend.sync(fullSyncRequest(state));
    expect(await backend.check()).toEqual([]);
    kernel.maps.services6.data.clear();
    kernel.maps.endpoints.data.set(endpointKey(99, 0).toString('hex'), endpointValue('IPv4', '198.18.9.9', 1));
    expect([...(await backend.check())].sort()).toEqual(['endpoint', 'service']);
    expect(await backend.sync(fullSyncRequest(state, 2))).toEqual({ repaired: ['service', 'endpoint'] });
    expect(await backend.check()).toEqual([]);
    expect(kernel.maps.endpoints.data.has(endpointKey(99, 0).toString('hex'))).toBe(false);
  });

  it('check() reads one slice per call, going on where it stopped; a missing element needs a map read with no sync in between', async () => {
    const sliced = new EbpfBackend({ cgroup: '/unused', kernel, logger, checkSliceMs: 0 });
    const state = nodeState([web(['198.18.1.10', '2001:db8:1::10'])]);
    await sliced.sync(fullSyncRequest(state));
    const scans = (): number[] => [
      kernel.maps.services4.scans,
      kernel.maps.services6.scans,
      kernel.maps.endpoints.scans,
    ];
    // A slice of 0 ms still reads one batch: one map per check here, a pass in three.
    for (const expected of [
      [1, 0, 0],
      [1, 1, 0],
      [1, 1, 1],
      [2, 1, 1],
    ]) {
      expect(await sliced.check()).toEqual([]);
      expect(scans()).toEqual(expected);
    }
    // services6 is read next; an endpoint goes missing, and a sync comes before endpoints are read.
    const [first] = kernel.maps.endpoints.data.keys();
    kernel.maps.endpoints.data.delete(first!);
    expect(await sliced.check()).toEqual([]);
    await sliced.sync({
      ...fullSyncRequest(state, 2),
      full: false,
      changes: { ...fullSyncRequest(state, 2).changes, updatedServices: new Set() },
    });
    expect(await sliced.check()).toEqual([]); // endpoints read across a sync: the count is not judged
    expect(await sliced.check()).toEqual([]); // services4
    expect(await sliced.check()).toEqual([]); // services6
    expect(await sliced.check()).toEqual(['endpoint']); // a whole map with no sync: one element short
    expect(await sliced.sync(fullSyncRequest(state, 3))).toEqual({ repaired: ['endpoint'] });
    expect(kernel.maps.endpoints.data.has(first!)).toBe(true);
  });

  it('an address two Services claim goes to the first, the other is logged and counted', async () => {
    const a = {
      name: 'a',
      clusterIPs: ['198.19.0.1'],
      externalIPs: ['203.0.113.10'],
      endpoints: [{ ip: '198.18.1.10' }],
    };
    const b = {
      name: 'b',
      clusterIPs: ['198.19.0.2'],
      externalIPs: ['203.0.113.10'],
      endpoints: [{ ip: '198.18.1.20' }],
    };
    await backend.sync(fullSyncRequest(nodeState([a, b])));
    expect(resolve(kernel, 'IPv4', '203.0.113.10', 80)?.endpoints).toEqual([ep('IPv4', '198.18.1.10')]);
    expect(logger.records.some((r) => r.msg === 'service part left out of the BPF maps')).toBe(true);
    // `a` lets go of it: a full sync gives it to `b`.
    await backend.sync(fullSyncRequest(nodeState([{ ...a, externalIPs: [] }, b]), 2));
    expect(resolve(kernel, 'IPv4', '203.0.113.10', 80)?.endpoints).toEqual([ep('IPv4', '198.18.1.20')]);
  });

  it('programs only the families the sync names; cleanup() closes the kernel side', async () => {
    const state = nodeState([web(['198.18.1.10', '2001:db8:1::10'])]);
    await backend.sync({ ...fullSyncRequest(state), families: ['IPv4'] });
    expect(kernel.maps.services6.data.size).toBe(0);
    await backend.sync({ ...fullSyncRequest(state, 2), families: ['IPv4', 'IPv6'] });
    expect(kernel.maps.services6.data.size).toBe(1);
    await backend.cleanup();
    expect(kernel.closed).toBe(true);
    await expect(backend.sync(fullSyncRequest(state, 3))).rejects.toThrow(/setup\(\) was not called/);
  });

  it('drives the packet path after the maps: same requests, its drift and repairs merged, its cleanup', async () => {
    const calls: string[] = [];
    const packetPath: Backend = {
      name: 'packets',
      families: ['IPv4', 'IPv6'],
      setup: async () => void calls.push('setup'),
      sync: async (req: SyncRequest) => {
        calls.push(`sync full=${req.full} maps=${kernel.maps.services4.data.size}`);
        return req.full ? { repaired: ['table'] } : {};
      },
      check: async (): Promise<DriftKinds> => ['chain'],
      cleanup: async () => void calls.push('cleanup'),
    };
    backend = new EbpfBackend({ cgroup: '/unused', kernel, logger, packetPath });
    await backend.setup();
    const state = nodeState([web(['198.18.1.10'])]);
    kernel.maps.services4.data.clear();
    expect(await backend.sync(fullSyncRequest(state))).toEqual({ repaired: ['table'] });
    expect(await backend.check()).toEqual(['chain']);
    await backend.cleanup();
    expect(calls).toEqual(['setup', 'sync full=true maps=1', 'cleanup']);
  });
});

describe('EbpfBackend map sizes (fake maps)', () => {
  /** `n` Services s0..s(n-1), one ClusterIP each, `eps` endpoints each. */
  const many = (n: number, eps = 1, first = 0): ServiceFixture[] =>
    Array.from({ length: n }, (_, j) => {
      const i = first + j;
      return {
        name: `s${i}`,
        clusterIPs: [`198.19.${i >> 8}.${i & 255}`],
        endpoints: Array.from({ length: eps }, (_, e) => ({ ip: `198.18.${e}.${(i % 250) + 1}` })),
      };
    });
  const all = (kernel: FakeKernel, n: number, first = 0) =>
    Array.from({ length: n }, (_, j) => resolve(kernel, 'IPv4', `198.19.${(first + j) >> 8}.${(first + j) & 255}`, 80));

  it('grownSize: a quarter of headroom, a power of two, never past the bound', () => {
    expect(grownSize(5, 1 << 20)).toBe(8);
    expect(grownSize(555_490, 1 << 22)).toBe(1 << 20);
    expect(grownSize(900, 1000)).toBe(1000);
    for (let n = 1; n < 5000; n += 37) {
      const size = grownSize(n, 1 << 20);
      expect(size).toBeGreaterThanOrEqual(n * 1.25);
      expect(size).toBeLessThan(n * 2.5 + 1);
    }
  });

  it('a full sync bigger than the maps: new maps sized from the state, filled, swapped in; counted', async () => {
    const kernel = new FakeKernel({ services4: 4, services6: 4, endpoints: 8 });
    const registry = new Registry();
    const backend = new EbpfBackend({ cgroup: '/unused', kernel, metrics: registry, logger: new RecordingLogger() });
    await backend.setup();
    await backend.sync(fullSyncRequest(nodeState(many(10, 2))));
    expect(kernel.resizes).toEqual([{ services4: 16, services6: 4, endpoints: 32 }]);
    expect(kernel.capacity).toEqual({ services4: 16, services6: 4, endpoints: 32 });
    expect(all(kernel, 10).every((lb) => lb?.count === 2 && lb.endpoints.length === 2)).toBe(true);
    // The new maps were filled before the swap, in the programs' order; the old maps were not written.
    expect(kernel.journal).toEqual(['resize', 'endpoints update', 'services4 update']);
    const metrics = await registry.metrics();
    expect(metrics).toContain('kpng_ebpf_map_resizes_total{map="services4"} 1');
    expect(metrics).toContain('kpng_ebpf_map_resizes_total{map="endpoints"} 1');
    expect(metrics).not.toContain('kpng_ebpf_map_resizes_total{map="services6"}');
    expect(metrics).toContain('kpng_ebpf_map_capacity{map="endpoints"} 32');
    expect(await backend.check()).toEqual([]);
  });

  it('a partial sync past the size grows again, keeping every other Service; then one change is one write', async () => {
    const kernel = new FakeKernel({ services4: 4, services6: 4, endpoints: 8 });
    const backend = new EbpfBackend({ cgroup: '/unused', kernel, logger: new RecordingLogger() });
    await backend.setup();
    await backend.sync(fullSyncRequest(nodeState(many(4))));
    expect(kernel.resizes).toEqual([]);
    // Peak, not result: adding 2 and deleting 2 in one sync still needs 6 keys at once (updates go first).
    const next = [...many(2), ...many(4, 1, 4)];
    await backend.sync(partialSyncRequest(nodeState(next), ['s2', 's3', 's4', 's5', 's6', 's7'], 2));
    expect(kernel.resizes).toEqual([{ services4: 16, services6: 4, endpoints: 8 }]); // 8 endpoint keys at the peak: fits
    expect(kernel.maps.services4.data.size).toBe(6);
    expect(all(kernel, 2).every((lb) => lb?.count === 1)).toBe(true);
    expect(all(kernel, 4, 4).every((lb) => lb?.count === 1)).toBe(true);
    expect(resolve(kernel, 'IPv4', '198.19.0.2', 80)).toBeUndefined();
    const before = kernel.writes();
    const moved = next.map((s) => (s.name === 's5' ? { ...s, endpoints: [{ ip: '198.18.9.9' }] } : s));
    await backend.sync(partialSyncRequest(nodeState(moved), ['s5'], 3));
    expect(kernel.writes() - before).toBe(1);
    expect(kernel.resizes).toHaveLength(1);
    expect(await backend.check()).toEqual([]);
  });

  it('past the bound: the sync is refused with the map, the need and the flag named, counted; the maps keep the last state', async () => {
    const kernel = new FakeKernel({ services4: 4, services6: 4, endpoints: 8 });
    const registry = new Registry();
    const backend = new EbpfBackend({
      cgroup: '/unused',
      kernel,
      metrics: registry,
      logger: new RecordingLogger(),
      maxEntries: { endpoints: 20 },
    });
    await backend.setup();
    await backend.sync(fullSyncRequest(nodeState(many(4, 2))));
    const refused = backend.sync(
      partialSyncRequest(nodeState(many(11, 2)), ['s4', 's5', 's6', 's7', 's8', 's9', 's10'], 2),
    );
    await expect(refused).rejects.toThrow(MapFullError);
    await expect(refused).rejects.toThrow(
      /endpoints would need 22 entries, more than its bound of 20 \(--max-endpoints\)/,
    );
    expect(await registry.getSingleMetricAsString('kpng_ebpf_map_full_total')).toContain(
      'kpng_ebpf_map_full_total{map="endpoints"} 1',
    );
    expect(kernel.resizes).toEqual([]);
    expect(kernel.maps.services4.data.size).toBe(4);
    expect(all(kernel, 4).every((lb) => lb?.count === 2)).toBe(true);
    // Within the bound again: core's full retry converges, growing to the bound, not past it.
    await backend.sync(fullSyncRequest(nodeState(many(9, 2)), 3));
    expect(kernel.capacity.endpoints).toBe(20);
    expect(all(kernel, 9).every((lb) => lb?.count === 2)).toBe(true);
  });

  it('a refused swap leaves the old maps in use, unchanged; the full retry grows and converges', async () => {
    const kernel = new FakeKernel({ services4: 4, services6: 4, endpoints: 8 });
    const backend = new EbpfBackend({ cgroup: '/unused', kernel, logger: new RecordingLogger() });
    await backend.setup();
    await backend.sync(fullSyncRequest(nodeState(many(3))));
    const old = kernel.maps;
    kernel.failNextResize = new Error('switch kpng_connect6 to the resized maps: EINVAL');
    await expect(
      backend.sync(partialSyncRequest(nodeState(many(8)), ['s3', 's4', 's5', 's6', 's7'], 2)),
    ).rejects.toThrow(/EINVAL/);
    expect(kernel.maps).toBe(old);
    expect(old.services4.data.size).toBe(3);
    expect(backend.applied()).toBeUndefined();
    await backend.sync(fullSyncRequest(nodeState(many(8)), 3));
    expect(kernel.capacity.services4).toBe(16);
    expect(all(kernel, 8).every((lb) => lb?.count === 1)).toBe(true);
  });
});
