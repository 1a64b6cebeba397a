// Kernel test: the eBPF backend end to end. Core's node-local state (built by core's node view from
// Service fixtures) synced into the real maps; the programs attached to a cgroup this test creates;
// real connections from a lab pod's client process in that cgroup to the Service addresses.
import type { ServiceModel } from '@kpng/core';
import { runExplain } from '@kpng/core/runtime';
import {
  fixtureModel,
  fullSyncRequest,
  nodeState,
  partialSyncRequest,
  SILENT_LOGGER,
  type ServiceFixture,
} from '@kpng/core/testing';
import { kernelE2e, Lab, sweepLeftovers } from '@kpng/lab';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EbpfBackend } from '../src/backend/ebpf-backend.js';
import { backend as module } from '../src/cli/backend-module.js';
import { SOCK_DESTROY, TestCgroup } from './test-cgroup.js';

const e2e = await kernelE2e('ebpf backend');

const V4 = '198.19.0.10';
const V6 = '2001:db8:5e::10';
const EMPTY = '198.19.0.11';
const EXTERNAL = '203.0.113.10';

describe.skipIf(!e2e.run)('ebpf backend (kernel)', () => {
  let lab: Lab;
  let cgroup: TestCgroup;
  let backend: EbpfBackend;
  const registry = new Registry();
  const capacity = async () => (await registry.getSingleMetricAsString('kpng_ebpf_map_capacity')).split('\n').slice(2);
  let web: (endpoints: readonly string[]) => ServiceFixture;
  const empty: ServiceFixture = { name: 'empty', clusterIPs: [EMPTY], endpoints: [] };

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await Lab.create({ pods: ['client', 'pod-a', 'pod-b'] });
    await Promise.all([lab.startEcho('pod-a', [8080]), lab.startEcho('pod-b', [8080])]);
    const a = lab.pod('pod-a');
    const b = lab.pod('pod-b');
    web = (names) => ({
      name: 'web',
      clusterIPs: [V4, V6],
      externalIPs: [EXTERNAL],
      ports: [
        { name: 'http', port: 80 },
        { name: 'dns', port: 53, protocol: 'UDP' },
      ],
      endpoints: names.flatMap((n) => (n === 'pod-a' ? [a.ipv4, a.ipv6] : [b.ipv4, b.ipv6]).map((ip) => ({ ip }))),
    });
    cgroup = TestCgroup.create();
    // Maps far smaller than the state: the first sync already grows them (new maps, links switched).
    backend = new EbpfBackend({
      cgroup: cgroup.path,
      logger: SILENT_LOGGER,
      metrics: registry,
      limits: { services4: 4, services6: 4, endpoints: 4 },
    });
    await backend.setup();
    await backend.sync(fullSyncRequest(nodeState([web(['pod-a', 'pod-b']), empty])));
  });

  afterAll(async () => {
    await backend?.cleanup();
    cgroup?.remove();
    await lab?.delete();
  });

  const staleSockets = async () =>
    (await registry.getSingleMetricAsString('kpng_ebpf_stale_udp_sockets_total'))
      .split('\n')
      .slice(2)
      .map((line) => /outcome="(\w+)"} (\d+)/.exec(line)!.slice(1).join(' '))
      .sort();
  const servers = (results: readonly { reply?: string }[]) => new Set(results.map((r) => r.reply?.split(' ')[0]));

  /** `kpng explain default/NAME --backend ebpf --cgroup-root <the test cgroup>`, the Service given as the API would. */
  async function explain(fixture: ServiceFixture): Promise<{ code: number; text: string }> {
    const reader = fixtureModel([fixture]);
    const model = reader.service([...reader.serviceKeys()][0]!) as ServiceModel;
    const out: string[] = [];
    const code = await runExplain('kpng', module, [`default/${fixture.name}`, '--cgroup-root', cgroup.path], {
      lookupService: async () => model,
      stdout: (t) => void out.push(t),
      stderr: (t) => void out.push(t),
    });
    return { code, text: out.join('') };
  }

  it('a client pod reaches the ClusterIP (IPv4, IPv6) and the external IP: every endpoint, the Service as peer', async () => {
    const client = lab.pod('client').namespace;
    for (const ip of [V4, V6, EXTERNAL]) {
      const results = await cgroup.client(client, { proto: 'tcp', ip, port: 80, count: 16 });
      expect(results.every((r) => r.ok && r.peer === `${ip} 80`)).toBe(true);
      expect(servers(results)).toEqual(new Set(['pod-a', 'pod-b']));
    }
  });

  it('UDP, connected and unconnected: answers from the endpoints, from the Service address', async () => {
    const client = lab.pod('client').namespace;
    for (const ip of [V4, V6]) {
      for (const proto of ['udp', 'udp-sendto'] as const) {
        const results = await cgroup.client(client, { proto, ip, port: 53, count: 12 });
        expect(results.every((r) => r.ok && r.peer === `${ip} 53`)).toBe(true);
        expect(servers(results)).toEqual(new Set(['pod-a', 'pod-b']));
      }
    }
  });

  it('a Service without endpoints: connect() is refused at once (ECONNREFUSED)', async () => {
    const [result] = await cgroup.client(lab.pod('client').namespace, { proto: 'tcp', ip: EMPTY, port: 80 });
    expect(result).toEqual({ ok: false, error: 'ECONNREFUSED' });
  });

  it('an endpoint change (a partial sync) is followed by the next connections, IPv4 and IPv6', async () => {
    const client = lab.pod('client').namespace;
    await backend.sync(partialSyncRequest(nodeState([web(['pod-b']), empty]), ['web'], 2));
    for (const ip of [V4, V6]) {
      const results = await cgroup.client(client, { proto: 'tcp', ip, port: 80, count: 8 });
      expect(servers(results)).toEqual(new Set(['pod-b']));
    }
    await backend.sync(partialSyncRequest(nodeState([web(['pod-a', 'pod-b']), empty]), ['web'], 3));
    const results = await cgroup.client(client, { proto: 'tcp', ip: V4, port: 80, count: 16 });
    expect(servers(results)).toEqual(new Set(['pod-a', 'pod-b']));
  });

  it('the maps grow while attached: 40 more Services, the links switched to the new programs, every Service reached', async () => {
    const client = lab.pod('client').namespace;
    const before = await cgroup.attached();
    // The first sync grew them for 5 Service keys (IPv4) and 12 endpoints (a quarter more, a power of two).
    expect(await capacity()).toEqual([
      'kpng_ebpf_map_capacity{map="services4"} 8',
      'kpng_ebpf_map_capacity{map="services6"} 4',
      'kpng_ebpf_map_capacity{map="endpoints"} 16',
    ]);
    const a = lab.pod('pod-a');
    const extra: ServiceFixture[] = Array.from({ length: 40 }, (_, i) => ({
      name: `extra-${i}`,
      clusterIPs: [`198.19.1.${i + 1}`],
      ports: [{ name: 'http', port: 80 }],
      endpoints: [{ ip: a.ipv4 }],
    }));
    const state = nodeState([web(['pod-a', 'pod-b']), empty, ...extra]);
    await backend.sync(
      partialSyncRequest(
        state,
        extra.map((s) => s.name),
        4,
      ),
    );
    expect(await cgroup.attached()).toEqual(before); // eight programs, none twice, none missing
    // 45 Service keys and 52 endpoints now.
    expect(await capacity()).toEqual([
      'kpng_ebpf_map_capacity{map="services4"} 64',
      'kpng_ebpf_map_capacity{map="services6"} 4',
      'kpng_ebpf_map_capacity{map="endpoints"} 128',
    ]);
    for (const ip of ['198.19.1.1', '198.19.1.40']) {
      const results = await cgroup.client(client, { proto: 'tcp', ip, port: 80, count: 2 });
      expect(results.every((r) => r.ok && r.peer === `${ip} 80`)).toBe(true);
      expect(servers(results)).toEqual(new Set(['pod-a']));
    }
    expect(servers(await cgroup.client(client, { proto: 'tcp', ip: V4, port: 80, count: 16 }))).toEqual(
      new Set(['pod-a', 'pod-b']),
    );
    // Back to the file's state for the cases after this one.
    await backend.sync(
      partialSyncRequest(
        nodeState([web(['pod-a', 'pod-b']), empty]),
        extra.map((s) => s.name),
        5,
      ),
    );
  });

  it('a connected UDP socket whose endpoint is removed: destroyed where the kernel can (6.5), else counted as left', async () => {
    const client = lab.pod('client').namespace;
    const held = await cgroup.hold(client, { ip: V4, port: 53 });
    expect(held.first).toMatchObject({ ok: true, peer: `${V4} 53` });
    const served = held.first.reply!.split(' ')[0]!;
    const other = served === 'pod-a' ? 'pod-b' : 'pod-a';
    await backend.sync(partialSyncRequest(nodeState([web([other]), empty]), ['web'], 6));
    const { second, reconnect } = await held.next();
    if (SOCK_DESTROY) {
      // The socket was ended (disconnected) under the application: its next receive reports
      // ECONNABORTED, or its next send EDESTADDRREQ (no peer any more); a fresh socket goes on.
      expect(second.ok).toBe(false);
      expect(['ECONNABORTED', 'EDESTADDRREQ']).toContain(second.error);
      expect(reconnect).toMatchObject({ ok: true, peer: `${V4} 53` });
      expect(reconnect!.reply!.split(' ')[0]).toBe(other);
      expect(await staleSockets()).toEqual(['destroyed 1', 'left 0', 'refused 0']);
    } else {
      // Without bpf_sock_destroy the socket keeps the removed endpoint (still running here): counted.
      expect(second).toMatchObject({ ok: true, peer: `${V4} 53` });
      expect(second.reply!.split(' ')[0]).toBe(served);
      expect(await staleSockets()).toEqual(['destroyed 0', 'left 1', 'refused 0']);
    }
    await backend.sync(partialSyncRequest(nodeState([web(['pod-a', 'pod-b']), empty]), ['web'], 7));
  });

  it('the drift check sees the maps as synced', async () => {
    expect(await backend.check()).toEqual([]);
  });

  it('explain reads the running maps by kernel ids (the programs on the cgroup): lbs, endpoints, sockets balanced', async () => {
    const a = lab.pod('pod-a');
    const b = lab.pod('pod-b');
    const { code, text } = await explain(web(['pod-a', 'pod-b']));
    expect(code).toBe(0);
    expect(text).toMatch(new RegExp(`^# default/web in BPF maps on cgroup ${cgroup.path} \\(programs \\d+, \\d+\\)\n`));
    for (const line of [
      `ClusterIP ${V4}:80/TCP -> lb \\d+: 2 endpoints\n`,
      `ClusterIP ${V4}:53/UDP -> lb \\d+: 2 endpoints\n`,
      `ClusterIP \\[${V6}\\]:80/TCP -> lb \\d+: 2 endpoints\n`,
      `external IP ${EXTERNAL}:80/TCP -> lb \\d+: 2 endpoints\n`,
    ])
      expect(text).toMatch(new RegExp(line));
    const lb = /ClusterIP 198\.19\.0\.10:80\/TCP -> lb (\d+)/.exec(text)![1];
    const endpoints = text.split(`lb ${lb} endpoints:\n`)[1]!.split(/\n(?! )/)[0]!;
    // Every case above connected to the ClusterIP: both endpoints have sockets in revnat.
    for (const ip of [a.ipv4, b.ipv4])
      expect(endpoints).toMatch(new RegExp(`#[01] ${ip}:8080, [1-9]\\d* sockets? balanced to it`));
    expect(text).toMatch(new RegExp(`\n  ${V4}:80: [1-9]\\d* sockets\n`));
    const refused = await explain(empty);
    expect(refused.text).toMatch(new RegExp(`ClusterIP ${EMPTY}:80/TCP -> lb \\d+: REJECT \\(no endpoints`));
    const absent = await explain({ name: 'absent', clusterIPs: ['198.19.0.99'], endpoints: [] });
    expect(absent.text).toContain('ClusterIP 198.19.0.99:80/TCP: not in the map\n');
  });

  it('a process outside the cgroup is not balanced', async () => {
    const [result] = await cgroup.outsider(lab.pod('client').namespace, { proto: 'tcp', ip: V4, port: 80 });
    expect(result?.ok).toBe(false);
  });

  it('cleanup() detaches every program: nothing is left on the cgroup', async () => {
    expect(await cgroup.attached()).toHaveLength(8);
    await backend.cleanup();
    expect(await cgroup.attached()).toEqual([]);
    expect((await explain(empty)).text).toBe(
      `# default/empty in BPF maps on cgroup ${cgroup.path} (no kpng program attached there)\n  (nothing programmed for this Service)\n`,
    );
    const [result] = await cgroup.client(lab.pod('client').namespace, { proto: 'tcp', ip: V4, port: 80 });
    expect(result?.ok).toBe(false);
  });
});
