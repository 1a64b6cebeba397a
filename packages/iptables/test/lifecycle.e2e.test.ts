// The iptables backend over time, on a real node in the lab, on iptables-legacy and iptables-nft,
// IPv4 and IPv6: partial syncs follow endpoint changes, stale UDP flows are flushed, a failed
// restore leaves the rules intact and the next sync recovers, a restarted backend keeps
// established connections, and cleanup removes exactly its chains. One lab for the file.
import { ConntrackTool, type ConntrackCleaner, type IPFamily } from '@kpng/core';
import { clusterIPs, nodeState, on, type PodName, type ServiceFixture } from '@kpng/core/testing';
import { createProxyLab, destination, HOLD_PORT, kernelE2e, sweepLeftovers, type Lab, type NetworkNamespace } from '@kpng/lab';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IptablesBackend } from '../src/backend/iptables-backend.js';
import { command } from '../src/iptables/commands.js';
import { processExecer, type Execer } from '../src/iptables/exec.js';
import { E2E_CONFIG, FLAVOURS, fullSync, partialSync } from './e2e-helpers.js';

const e2e = await kernelE2e('iptables backend: lifecycle');

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

/** Switchable seams: a cleaner that can be turned off, an execer that can corrupt the next restore. */
class Seams {
  cleanConntrack = true;
  corruptNextRestore = false;
  readonly execer: Execer = {
    run: (argv, stdin, signal) => {
      if (this.corruptNextRestore && argv.some((a) => a.endsWith('-restore'))) {
        this.corruptNextRestore = false;
        // A real failure at the end of the nat table: the kernel must apply none of that table.
        return processExecer.run(argv, stdin.replace(/COMMIT\n$/, '-A KUBE-NO-SUCH-CHAIN -j ACCEPT\nCOMMIT\n'), signal);
      }
      return processExecer.run(argv, stdin, signal);
    },
  };
  cleaner(netns: string): ConntrackCleaner {
    const tool = new ConntrackTool({ execer: this.execer, netns });
    return { clean: (request) => (this.cleanConntrack ? tool.clean(request) : Promise.resolve(0)) };
  }
}

describe.skipIf(!e2e.run)('iptables backend in the lab: lifecycle', () => {
  let lab: Lab;

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await createProxyLab();
  });
  afterAll(async () => {
    await lab?.delete();
  });

  describe.each(FLAVOURS)('iptables-%s', (flavour) => {
    let backend: IptablesBackend;
    const seams = new Seams();
    const registry = new Registry();
    let revision = 1;

    const newBackend = (): IptablesBackend =>
      new IptablesBackend({ ...E2E_CONFIG, flavour, netns: lab.node.namespace.name, execer: seams.execer, conntrack: seams.cleaner(lab.node.namespace.name), metrics: registry });
    const sync = (state: ServiceFixture[], changed?: string[]): Promise<void> =>
      backend.sync(changed === undefined ? fullSync(nodeState(state), ++revision) : partialSync(nodeState(state), changed, ++revision));
    const servers = async (family: IPFamily, from: PodName | 'external', to: string, port: number, count = 12): Promise<string[]> => {
      const ns = from === 'external' ? lab.external.namespace : lab.pod(`pod-${from}`).namespace;
      const results = await lab.probeRepeatedly(ns, { proto: 'tcp', ip: destination(lab, family, to), port, timeoutMs: 1_000 }, count);
      return [...new Set(results.map((r) => r.server ?? r.error ?? '?'))].sort();
    };

    beforeAll(async () => {
      backend = newBackend();
      await sync(services([], ['b']));
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
          const sourcePort = (family === 'IPv4' ? 40053 : 40054) + (flavour === 'nft' ? 10 : 0);
          expect(await udpFromFixedPort(lab, client, vip, 53, sourcePort)).toBe('pod-b');
          // Without cleanup the flow stays pinned to the old endpoint: the check below can fail.
          seams.cleanConntrack = false;
          await sync(services([], ['c']), ['dns']);
          expect(await udpFromFixedPort(lab, client, vip, 53, sourcePort)).toBe('pod-b');
          seams.cleanConntrack = true;
          await sync(services([], ['d']), ['dns']);
          expect(await udpFromFixedPort(lab, client, vip, 53, sourcePort)).toBe('pod-d');
        });

        it('a stale UDP NodePort flow is flushed too (item 49)', async () => {
          await sync(services([], ['b']), ['dns']);
          const sourcePort = (family === 'IPv4' ? 41053 : 41054) + (flavour === 'nft' ? 10 : 0);
          const node = destination(lab, family, 'node');
          expect(await udpFromFixedPort(lab, lab.external.namespace, node, 30053, sourcePort)).toBe('pod-b');
          await sync(services([], ['c']), ['dns']);
          expect(await udpFromFixedPort(lab, lab.external.namespace, node, 30053, sourcePort)).toBe('pod-c');
        });

        it('UDP to a Service whose endpoints become ready later gets through (item 51)', async () => {
          await sync(services([], []), ['dns']);
          const sourcePort = (family === 'IPv4' ? 42053 : 42054) + (flavour === 'nft' ? 10 : 0);
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

        it('a failed restore leaves the rules intact, is counted, and the next sync recovers', async () => {
          await sync(services(['a'], ['b']), ['web']);
          seams.corruptNextRestore = true;
          await expect(sync(services(['b'], ['b']), ['web'])).rejects.toMatchObject({ code: 'SYNC_FAILED' });
          expect(await servers(family, 'c', 'cluster:10', 80, 4)).toEqual(['pod-a']);
          const metrics = await registry.metrics();
          expect(metrics).toMatch(/kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total\{ip_family="IPv4"\} [1-9]/);
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
            backend = newBackend(); // a new instance: its first sync is a full restore that sweeps
            await sync(services(['b'], ['b']));
            for (const h of held) expect(await h.exchange('2')).toBe('pod-a 2');
          } finally {
            await Promise.all(held.map((h) => h.close()));
          }
          expect(await servers(family, 'external', 'node', 30080, 2)).toEqual(['pod-b']);
        });
      });
    }

    it('cleanup removes the kube-proxy chains and nothing else', async () => {
      const ns = lab.node.namespace;
      await ns.exec([command('IPv4', flavour, 'iptables'), '-t', 'nat', '-N', 'SOMEONE-ELSE']);
      await backend.cleanup();
      for (const family of ['IPv4', 'IPv6'] as const) {
        const { stdout } = await ns.exec([command(family, flavour, 'save')]);
        expect(stdout).not.toMatch(/KUBE-(?!FIREWALL)/);
      }
      expect((await ns.exec([command('IPv4', flavour, 'save'), '-t', 'nat'])).stdout).toMatch(/:SOMEONE-ELSE/);
      await ns.exec([command('IPv4', flavour, 'iptables'), '-t', 'nat', '-X', 'SOMEONE-ELSE']);
      expect(await servers('IPv4', 'c', 'cluster:10', 80, 1)).toEqual(['timeout']);
    });
  });
});
