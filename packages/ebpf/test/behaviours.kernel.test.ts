// The shared behaviour table (@kpng/lab BEHAVIOURS) where it applies to socket-level load balancing:
// core's allFeatures() scenario synced into the real maps, the programs attached to a cgroup this test
// creates, and every client process (pods local and remote, the node itself) moved into that cgroup
// before it connects. Cases from the external client, and to NodePorts, are north-south: not this
// backend's socket hooks (not written yet). Two cases differ by design (hairpin, ITP Local without a
// local endpoint) and are stated here instead, with two more the socket hooks cover (external IPs).
import { allFeatures, fullSyncRequest, nodeState, SILENT_LOGGER } from '@kpng/core/testing';
import {
  BEHAVIOURS,
  clientNamespace,
  createProxyLab,
  destination,
  expectBehaviour,
  kernelE2e,
  sweepLeftovers,
  type BehaviourCase,
  type Lab,
} from '@kpng/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EbpfBackend } from '../src/backend/ebpf-backend.js';
import { asProbe, TestCgroup } from './test-cgroup.js';

const e2e = await kernelE2e('ebpf backend: behaviour table');

/** East-west from this node's processes, whose answer a socket hook gives as any backend's would. */
const applies = (c: BehaviourCase): boolean =>
  c.from !== 'external' && c.to !== 'node' && c.hairpin !== true && c.expect !== 'timeout';

/** Where socket load balancing answers differently from a packet path, by design. */
const OWN: readonly (BehaviourCase & { readonly why: string })[] = [
  {
    name: 'hairpin: a pod reaching itself through its Service keeps its own source (no NAT, so no masquerade needed)',
    why: 'the connection goes to the endpoint directly, its reply comes straight back',
    from: 'a',
    to: 'cluster:10',
    port: 80,
    expect: ['a', 'c'],
    source: 'kept',
  },
  {
    name: 'an external IP without endpoints from a pod: refused',
    why: 'external IPs reached from the node are balanced at the socket too',
    from: 'b',
    to: 'external:68',
    port: 80,
    expect: 'refused',
  },
  {
    name: 'ETP Local external IP from a local pod: short-circuit to every endpoint',
    why: "upstream's short-circuit for traffic from the node",
    from: 'b',
    to: 'external:72',
    port: 80,
    expect: ['a', 'c'],
    source: 'kept',
  },
];

describe.skipIf(!e2e.run)('ebpf backend in the lab: the behaviour table', () => {
  let lab: Lab;
  let cgroup: TestCgroup;
  let backend: EbpfBackend;

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await createProxyLab();
    cgroup = TestCgroup.create();
    backend = new EbpfBackend({ cgroup: cgroup.path, logger: SILENT_LOGGER });
    await backend.setup();
    await backend.sync(fullSyncRequest(nodeState(allFeatures())));
  });
  afterAll(async () => {
    await backend?.cleanup();
    cgroup?.remove();
    await lab?.delete();
  });

  const cases = [...BEHAVIOURS.filter(applies), ...OWN];

  it('runs the table cases that apply', () => {
    expect(BEHAVIOURS.filter(applies)).toHaveLength(8);
  });

  for (const family of ['IPv4', 'IPv6'] as const) {
    describe(family, () => {
      it.each(cases)('$name', async (c) => {
        const results = await cgroup.client(clientNamespace(lab, c.from), {
          proto: c.proto ?? 'tcp',
          ip: destination(lab, family, c.to),
          port: c.port,
          count: Array.isArray(c.expect) ? 16 : 1,
          timeoutMs: 1_000,
        });
        expectBehaviour(results.map(asProbe), family, c);
      });

      // The table's "ITP Local without a local endpoint: dropped": a socket call cannot be dropped
      // silently, so connect() fails at once.
      it('ITP Local without a local endpoint: connect() fails at once with EHOSTUNREACH', async () => {
        const ip = destination(lab, family, 'cluster:18');
        const results = await cgroup.client(clientNamespace(lab, 'b'), { proto: 'tcp', ip, port: 80 });
        expect(results).toEqual([{ ok: false, error: 'EHOSTUNREACH' }]);
      });
    });
  }
});
