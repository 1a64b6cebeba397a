// Kernel test: the eBPF backend end to end. Core's node-local state (built by core's node view from
// Service fixtures) synced into the real maps; the programs attached to a cgroup this test creates;
// real connections from a lab pod's client process in that cgroup to the Service addresses.
import { fullSyncRequest, nodeState, partialSyncRequest, SILENT_LOGGER, type ServiceFixture } from '@kpng/core/testing';
import { kernelE2e, Lab, sweepLeftovers } from '@kpng/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EbpfBackend } from '../src/backend/ebpf-backend.js';
import { TestCgroup } from './test-cgroup.js';

const e2e = await kernelE2e('ebpf backend');

const V4 = '198.19.0.10';
const V6 = '2001:db8:5e::10';
const EMPTY = '198.19.0.11';
const EXTERNAL = '203.0.113.10';

describe.skipIf(!e2e.run)('ebpf backend (kernel)', () => {
  let lab: Lab;
  let cgroup: TestCgroup;
  let backend: EbpfBackend;
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
    backend = new EbpfBackend({ cgroup: cgroup.path, logger: SILENT_LOGGER });
    await backend.setup();
    await backend.sync(fullSyncRequest(nodeState([web(['pod-a', 'pod-b']), empty])));
  });

  afterAll(async () => {
    await backend?.cleanup();
    cgroup?.remove();
    await lab?.delete();
  });

  const servers = (results: readonly { reply?: string }[]) => new Set(results.map((r) => r.reply?.split(' ')[0]));

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

  it('the drift check sees the maps as synced', async () => {
    expect(await backend.check()).toEqual([]);
  });

  it('a process outside the cgroup is not balanced', async () => {
    const [result] = await cgroup.outsider(lab.pod('client').namespace, { proto: 'tcp', ip: V4, port: 80 });
    expect(result?.ok).toBe(false);
  });

  it('cleanup() detaches every program: nothing is left on the cgroup', async () => {
    expect(cgroup.attached()).toHaveLength(8);
    await backend.cleanup();
    expect(cgroup.attached()).toEqual([]);
    const [result] = await cgroup.client(lab.pod('client').namespace, { proto: 'tcp', ip: V4, port: 80 });
    expect(result?.ok).toBe(false);
  });
});
