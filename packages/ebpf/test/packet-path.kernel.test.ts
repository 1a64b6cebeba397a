// The whole shared behaviour table (@kpng/lab BEHAVIOURS, core's allFeatures()) against the eBPF
// backend with the nft backend as its packet path (`--packet-path nft`): the maps balance every
// client process of the test cgroup (pods local and remote, the node) at the socket; the nft
// backend programs the lab's node namespace for what enters the node (the external client:
// ClusterIP, NodePorts, external and LB IPs, source ranges, masquerade). Two cases differ by
// design for clients in the cgroup: hairpin (no NAT, the pod keeps its own source) and ITP Local
// without a local endpoint (connect() fails with EHOSTUNREACH at once, not a drop). The packet
// path is north-south only (nft scope 'north-south', as `--packet-path nft` configures it): a
// ClusterIP reached from outside the node is refused by the ClusterIP guard, not balanced.
import type { ServiceModel } from '@kpng/core';
import { runExplain } from '@kpng/core/runtime';
import { allFeatures, fixtureModel, fullSyncRequest, nodeState, SILENT_LOGGER } from '@kpng/core/testing';
import {
  BEHAVIOURS,
  clientNamespace,
  CLUSTER_IP_GUARD,
  createProxyLab,
  destination,
  expectBehaviour,
  kernelE2e,
  probeCase,
  sweepLeftovers,
  type BehaviourCase,
  type Lab,
} from '@kpng/lab';
import { NftBackend } from '@kpng/nft';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EbpfBackend } from '../src/backend/ebpf-backend.js';
import { backend as module } from '../src/cli/backend-module.js';
import { asProbe, TestCgroup } from './test-cgroup.js';

const e2e = await kernelE2e('ebpf backend with the nft packet path');

const byDesign = (c: BehaviourCase): boolean => c.from !== 'external' && (c.hairpin === true || c.expect === 'timeout');

describe.skipIf(!e2e.run)('ebpf backend + nft packet path in the lab: the whole behaviour table', () => {
  let lab: Lab;
  let cgroup: TestCgroup;
  let backend: EbpfBackend;

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await createProxyLab();
    cgroup = TestCgroup.create();
    const packetPath = new NftBackend({
      localDetector: { mode: 'ClusterCIDR', clusterCIDRs: ['198.18.0.0/22', '2001:db8::/46'] },
      serviceCIDRs: ['198.19.0.0/16', '2001:db8:5e::/64'],
      netns: lab.node.namespace.name,
      conntrack: false,
      log: SILENT_LOGGER,
      scope: 'north-south',
    });
    backend = new EbpfBackend({ cgroup: cgroup.path, logger: SILENT_LOGGER, packetPath });
    await backend.setup();
    await backend.sync(fullSyncRequest(nodeState(allFeatures())));
  });
  afterAll(async () => {
    await backend?.cleanup();
    await backend?.close();
    cgroup?.remove();
    await lab?.delete();
  });

  it('programmed both: the maps, and the nft table in the node namespace', async () => {
    expect(backend.applied()?.services4.size).toBeGreaterThan(0);
    const { stdout } = await lab.node.namespace.exec(['nft', 'list', 'table', 'ip', 'kpng']);
    expect(stdout).toMatch(/198\.19\./);
  });

  // North-south only: nothing balances a ClusterIP for a client outside the node; the guard refuses it.
  const outsideToClusterIP = (c: BehaviourCase): boolean => c.from === 'external' && c.to.startsWith('cluster:');
  const cases = [...BEHAVIOURS, ...CLUSTER_IP_GUARD]
    .filter((c) => !byDesign(c))
    .map((c): BehaviourCase =>
      outsideToClusterIP(c) ? { name: c.name, from: c.from, to: c.to, port: c.port, expect: 'refused' } : c,
    );

  for (const family of ['IPv4', 'IPv6'] as const) {
    describe(family, () => {
      it.each(cases)('$name', async (c) => {
        // The external client is outside the node: it never runs in the cgroup.
        const results =
          c.from === 'external'
            ? await probeCase(lab, family, c)
            : (
                await cgroup.client(clientNamespace(lab, c.from), {
                  proto: c.proto ?? 'tcp',
                  ip: destination(lab, family, c.to),
                  port: c.port,
                  count: Array.isArray(c.expect) ? 16 : 1,
                  timeoutMs: 1_000,
                })
              ).map(asProbe);
        expectBehaviour(results, family, c);
      });
    });
  }

  it('the one case answered differently is the ClusterIP from outside', () => {
    expect(BEHAVIOURS.filter(outsideToClusterIP).map((c) => c.name)).toEqual([
      'ClusterIP from outside the cluster is masqueraded',
    ]);
  });

  it('the nft table balances no TCP/UDP ClusterIP', async () => {
    const { stdout } = await lab.node.namespace.exec(['nft', 'list', 'map', 'ip', 'kpng', 'service-ips']);
    expect(stdout).toMatch(/203\.0\.113\./);
    expect(stdout).toMatch(/198\.19\.[0-9.]+ \. sctp/); // SCTP, which the socket hooks do not serve
    expect(stdout).not.toMatch(/198\.19\.[0-9.]+ \. (tcp|udp)/);
  });

  it('explain --packet-path nft: the Service in the maps, the LB IP left to the packet path, then its nft elements', async () => {
    const reader = fixtureModel(allFeatures().filter((f) => f.name === 'lb'));
    const model = reader.service([...reader.serviceKeys()][0]!) as ServiceModel;
    const out: string[] = [];
    const argv = [
      'default/lb',
      '--cgroup-root',
      cgroup.path,
      '--packet-path',
      'nft',
      '--netns',
      lab.node.namespace.name,
    ];
    const code = await runExplain('kpng', module, argv, {
      lookupService: async () => model,
      stdout: (t) => void out.push(t),
      stderr: (t) => void out.push(t),
    });
    const text = out.join('');
    expect(code, text).toBe(0);
    const [bpf, nft4] = text.split(/^(?=# default\/lb in nftables table ip kpng\n)/m);
    expect(bpf).toMatch(/^# default\/lb in BPF maps on cgroup .* \(programs \d+, \d+\)\n/);
    expect(bpf).toMatch(/ClusterIP 198\.19\.[0-9.]+:80\/TCP -> lb \d+: 2 endpoints\n/);
    expect(bpf).toMatch(
      /LB IP 203\.0\.113\.70:80\/TCP: not in the map \(loadBalancerSourceRanges: left to the packet path\)\n/,
    );
    // The packet path's own report of the same Service (nft's explain, in the node namespace).
    expect(nft4).toContain('30083');
    expect(nft4).toContain('203.0.113.70');
  });

  it('the cases left out are exactly the two by design', () => {
    expect(BEHAVIOURS.filter(byDesign).map((c) => c.name)).toEqual([
      'ITP Local without a local endpoint: dropped',
      'hairpin: a pod reaches itself through its Service (item 6)',
    ]);
  });
});
