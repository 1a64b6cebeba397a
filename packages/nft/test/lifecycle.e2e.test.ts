// The nft backend over time, on a real node in the lab: partial syncs follow endpoint changes,
// stale UDP flows are flushed, a failed transaction leaves the rules intact, a restarted backend
// keeps established connections, and cleanup removes exactly its tables. IPv4 and IPv6.
import { ConntrackTool, type ConntrackCleaner, type IPFamily } from '@kpng/core';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NftBackend } from '../src/backend/nft-backend.js';
import { processExecer, type Execer } from '../src/nftables/index.js';
import { nodeState, type ServiceFixture } from '../src/testing/fixtures.js';
import { clusterIPs, on, type PodName } from '../src/testing/scenarios.js';
import { createLab, destination, E2E_CONFIG, fullSync, HOLD_PORT, partialSync } from './e2e-helpers.js';
import { kernelE2e, sweepLeftovers, type Lab, type NetworkNamespace } from './lab.js';

const e2e = await kernelE2e('nft backend: lifecycle');

/** One UDP datagram from a fixed source port (one conntrack flow across calls): who answered. */
async function udpFromFixedPort(lab: Lab, from: NetworkNamespace, ip: string, port: number, sourcePort: number): Promise<string> {
  const result = await lab.probe(from, { proto: 'udp', ip, port, sourcePort, timeoutMs: 1_500 });
  return result.ok ? result.server ?? '?' : result.error ?? '?';
}

/** The Services of this file; `web` and `dns` change as the tests go. */
function services(web: PodName[], dns: PodName[], sticky = true): ServiceFixture[] {
  return [
    { name: 'web', clusterIPs: clusterIPs(10), ports: [{ port: 80, nodePort: 30080 }], endpoints: on(...web) },
    { name: 'dns', clusterIPs: clusterIPs(11), ports: [{ protocol: 'UDP', port: 53, nodePort: 30053 }], endpoints: on(...dns) },
    { name: 'hold', clusterIPs: clusterIPs(12), ports: [{ port: 90, targetPort: HOLD_PORT, nodePort: 30090 }], endpoints: on('a') },
    { name: 'sticky', clusterIPs: clusterIPs(19), ports: [{ port: 80 }], ...(sticky ? { affinity: 300 } : {}), endpoints: on('a', 'b') },
  ];
}

/** Switchable seams: a cleaner that can be turned off, an execer that can corrupt the next nft run. */
class Seams {
  cleanConntrack = true;
  corruptNextNft = false;
  readonly execer: Execer = {
    run: (argv, stdin, signal) => {
      const isApply = argv.includes('nft') && argv.includes('-f');
      if (isApply && this.corruptNextNft) {
        this.corruptNextNft = false;
        // A real nft failure, late in the transaction: the kernel must apply none of it.
        return processExecer.run(argv, `${stdin}add rule ip kpng no-such-chain accept\n`, signal);
      }
      return processExecer.run(argv, stdin, signal);
    },
  };
  cleaner(netns: string): ConntrackCleaner {
    const tool = new ConntrackTool({ execer: this.execer, netns });
    return { clean: (request) => (this.cleanConntrack ? tool.clean(request) : Promise.resolve(0)) };
  }
}

describe.skipIf(!e2e.run)('nft backend in the lab: lifecycle', () => {
  let lab: Lab;
  let backend: NftBackend;
  const seams = new Seams();
  const registry = new Registry();
  let revision = 1;

  const newBackend = (): NftBackend =>
    new NftBackend({ ...E2E_CONFIG, netns: lab.node.namespace.name, execer: seams.execer, conntrack: seams.cleaner(lab.node.namespace.name), metrics: registry });
  const sync = (state: ServiceFixture[], changed?: string[]): Promise<void> =>
    backend.sync(changed === undefined ? fullSync(nodeState(state), ++revision) : partialSync(nodeState(state), changed, ++revision));
  const servers = async (family: IPFamily, from: PodName | 'external', to: string, port: number, count = 12): Promise<string[]> => {
    const ns = from === 'external' ? lab.external.namespace : lab.pod(`pod-${from}`).namespace;
    const results = await lab.probeRepeatedly(ns, { proto: 'tcp', ip: destination(lab, family, to), port, timeoutMs: 1_000 }, count);
    return [...new Set(results.map((r) => r.server ?? r.error ?? '?'))].sort();
  };

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await createLab();
    backend = newBackend();
    await sync(services([], ['b']));
  });
  afterAll(async () => {
    await lab?.delete();
  });

  for (const family of ['IPv4', 'IPv6'] as const) {
    describe(family, () => {
      it('partial syncs follow endpoints: none, a, a+b, b, none (item 2)', async () => {
        const steps: [PodName[], string[]][] = [
          [[], ['refused']],
          [['a'], ['pod-a']],
          [['a', 'b'], ['pod-a', 'pod-b']],
          [['b'], ['pod-b']],
          [[], ['refused']],
        ];
        for (const [pods, expected] of steps) {
          await sync(services(pods, ['b']), ['web']);
          expect(await servers(family, 'c', 'cluster:10', 80, pods.length > 1 ? 12 : 2), `endpoints ${pods.join(',')}`).toEqual(expected);
        }
      });

      it('a stale UDP flow is flushed, so the next datagram reaches the new endpoint (items 49, 50a)', async () => {
        await sync(services([], ['b']), ['dns']);
        const client = lab.pod('pod-a').namespace;
        const vip = destination(lab, family, 'cluster:11');
        const sourcePort = family === 'IPv4' ? 40053 : 40054;
        expect(await udpFromFixedPort(lab, client, vip, 53, sourcePort)).toBe('pod-b');
        // Without cleanup the flow stays pinned to the old endpoint: the check below can fail.
        seams.cleanConntrack = false;
        await sync(services([], ['c']), ['dns']);
        expect(await udpFromFixedPort(lab, client, vip, 53, sourcePort)).toBe('pod-b');
        seams.cleanConntrack = true;
        await sync(services([], ['d']), ['dns']);
        expect(await udpFromFixedPort(lab, client, vip, 53, sourcePort)).toBe('pod-d');
        expect(await registry.metrics()).toMatch(new RegExp(`kubeproxy_conntrack_reconciler_deleted_entries_total\\{ip_family="${family}"\\} [1-9]`));
      });

      it('a stale UDP NodePort flow is flushed too (item 49)', async () => {
        await sync(services([], ['b']), ['dns']);
        const sourcePort = family === 'IPv4' ? 41053 : 41054;
        const node = destination(lab, family, 'node');
        expect(await udpFromFixedPort(lab, lab.external.namespace, node, 30053, sourcePort)).toBe('pod-b');
        await sync(services([], ['c']), ['dns']);
        expect(await udpFromFixedPort(lab, lab.external.namespace, node, 30053, sourcePort)).toBe('pod-c');
      });

      it('UDP to a Service whose endpoints become ready later gets through (item 51)', async () => {
        await sync(services([], []), ['dns']);
        const sourcePort = family === 'IPv4' ? 42053 : 42054;
        const vip = destination(lab, family, 'cluster:11');
        expect(await udpFromFixedPort(lab, lab.pod('pod-a').namespace, vip, 53, sourcePort)).toMatch(/^(refused|timeout)$/);
        await sync(services([], ['b']), ['dns']);
        expect(await udpFromFixedPort(lab, lab.pod('pod-a').namespace, vip, 53, sourcePort)).toBe('pod-b');
      });

      it('switching ClientIP affinity off and on (item 26)', async () => {
        await sync(services(['a'], ['b'], false), ['sticky']);
        expect(await servers(family, 'c', 'cluster:19', 80, 16)).toEqual(['pod-a', 'pod-b']);
        await sync(services(['a'], ['b'], true), ['sticky']);
        expect((await servers(family, 'c', 'cluster:19', 80, 16)).length).toBe(1);
      });

      it('a failed transaction leaves the rules intact; the next sync recovers', async () => {
        await sync(services(['a'], ['b']), ['web']);
        seams.corruptNextNft = true;
        await expect(sync(services(['b'], ['b']), ['web'])).rejects.toMatchObject({ code: 'SYNC_FAILED' });
        expect(await servers(family, 'c', 'cluster:10', 80, 4)).toEqual(['pod-a']);
        expect(await registry.metrics()).toMatch(/kubeproxy_sync_proxy_rules_nftables_sync_failures_total\{ip_family="IPv4"\} [1-9]/);
        await sync(services(['b'], ['b']), ['web']);
        expect(await servers(family, 'c', 'cluster:10', 80, 4)).toEqual(['pod-b']);
      });

      it('a restarted backend keeps established connections (item 9)', async () => {
        const clients = [
          { from: lab.pod('pod-b').namespace, ip: destination(lab, family, 'cluster:12'), port: 90 },
          { from: lab.external.namespace, ip: destination(lab, family, 'node'), port: 30090 },
        ];
        const held = await Promise.all(clients.map((c) => lab.hold(c.from, { ip: c.ip, port: c.port })));
        try {
          for (const h of held) expect(await h.exchange('1')).toBe('pod-a 1');
          backend = newBackend(); // a new instance: its first sync drops and recreates the table
          await sync(services(['b'], ['b']));
          for (const h of held) expect(await h.exchange('2')).toBe('pod-a 2');
        } finally {
          await Promise.all(held.map((h) => h.close()));
        }
        // and serves new ones.
        expect(await servers(family, 'external', 'node', 30080, 2)).toEqual(['pod-b']);
      });
    });
  }

  it('cleanup removes the kpng tables and nothing else', async () => {
    const ns = lab.node.namespace;
    await ns.exec(['nft', 'add', 'table', 'inet', 'someone-else']);
    await backend.cleanup();
    const { stdout } = await ns.exec(['nft', 'list', 'tables']);
    expect(stdout.trim().split('\n')).toEqual(['table inet someone-else']);
    expect(await servers('IPv4', 'c', 'cluster:10', 80, 1)).toEqual(['timeout']);
  });
});
