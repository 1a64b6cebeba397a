// Runs inside the lab's VM (Debian 6.1: IPVS, dummy links): the IPVS backend programs the lab's node
// namespace, and real TCP/UDP goes from pods, the node and an external client to pods here and on
// the remote node. ipvsadm is the oracle for the table.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IPFamily, NodeLocalState, SyncRequest } from '@kpng/core';
import { Lab, type NetworkNamespace, scaledTimeout, startEchoServer, sweepLeftovers, VM_INPUTS_ENV } from '@kpng/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IpvsBackend } from '../../src/backend/ipvs-backend.js';
import type { IpvsBackendOptions } from '../../src/backend/options.js';
import { type E2eScenario, HEALTH_CHECK_PORT, SCTP_PORT } from '../scenarios.js';
import { describeFaults } from './faults.js';

const ECHO = 8080;
const HOLD = 9090;
const scenario = JSON.parse(
  readFileSync(join(process.env[VM_INPUTS_ENV] ?? '', 'scenario.json'), 'utf8'),
) as E2eScenario;
const EXTERNAL_CLIENT = { IPv4: '203.0.113.2', IPv6: '2001:db8:ee::2' } as const;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const request = (state: NodeLocalState, full: boolean, revision: number): SyncRequest => ({
  state,
  full,
  revision,
  changes: { triggerTimes: new Map(), nodeChanged: false },
});
/** A Service's ClusterIP, first external IP or first LB IP, from the scenario itself. */
const address = (name: string, family: IPFamily, kind: 'cluster' | 'external' | 'lb' = 'cluster'): string => {
  const fa = scenario.initial.services.find((s) => s.name === name)?.families[family];
  const ip = kind === 'cluster' ? fa?.clusterIP : kind === 'lb' ? fa?.loadBalancerIPs[0] : fa?.externalIPs[0];
  if (ip === undefined) throw new Error(`no ${kind} ${family} address for ${name}`);
  return ip;
};

describe('IpvsBackend on a real kernel: traffic through the lab', () => {
  let lab: Lab;
  let backend: IpvsBackend;
  let options: IpvsBackendOptions;
  let revision = 1;
  let sctpServer: ReturnType<NetworkNamespace['spawn']> | undefined;
  const from = (who: 'a' | 'node' | 'external'): NetworkNamespace =>
    who === 'node' ? lab.node.namespace : who === 'external' ? lab.external.namespace : lab.pod('pod-a').namespace;
  const probeOk = async (who: 'a' | 'node' | 'external', proto: 'tcp' | 'udp', ip: string, port: number, count = 1) => {
    const results = await lab.probeRepeatedly(from(who), { proto, ip, port, timeoutMs: 2_000 }, count);
    expect(
      results.filter((r) => !r.ok),
      JSON.stringify(results),
    ).toEqual([]);
    return results;
  };
  const ipvsadm = async (): Promise<string[]> =>
    (await lab.node.namespace.exec(['ipvsadm', '-Ln'])).stdout.split('\n').map((l) => l.trim().replace(/\s+/g, ' '));

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await Lab.create({ pods: ['pod-a', 'pod-b'], remotePods: ['pod-c', 'pod-d'], nodeDefaultRoute: true });
    // One at a time: on the VM's single emulated CPU, four node processes starting together can
    // each miss the lab's 10 s start budget on a busy host.
    for (const pod of lab.pods) await lab.startEcho(pod.name, [ECHO], { holdPorts: [HOLD] });
    // SCTP has no Node API: socat answers each association with one line (IPv4 and IPv6).
    sctpServer = lab
      .pod('pod-b')
      .namespace.spawn(['socat', `SCTP6-LISTEN:${SCTP_PORT},fork,reuseaddr,ipv6only=0`, 'SYSTEM:echo sctp pod-b']);
    options = {
      netns: lab.node.namespace.name,
      config: { clusterCIDRs: ['198.18.0.0/22', '2001:db8::/46'], tcpFinTimeout: 1 },
      drainIntervalMs: 3_600_000,
    };
    backend = new IpvsBackend(options);
    await backend.setup();
    await backend.sync(request(scenario.initial, true, revision++));
  });
  afterAll(async () => {
    await sctpServer?.stop();
    await backend?.cleanup().catch(() => undefined);
    await backend?.close();
    await lab?.delete();
  });

  it('ipvsadm -Ln shows the virtual and real servers the state asks for', async () => {
    const lines = await ipvsadm();
    expect(lines).toContain('TCP 198.19.0.19:80 rr');
    expect(lines).toContain('TCP 198.18.255.1:30080 rr');
    expect(lines).toContain('TCP 203.0.113.73:80 rr');
    expect(lines).toContain('UDP 198.19.0.20:53 rr');
    expect(lines).toContain('TCP 198.19.0.21:80 rr persistent 300');
    expect(lines).toContain('TCP [2001:db8:5e::13]:80 rr');
    expect(lines).toContain('-> 198.18.1.11:8080 Masq 1 0 0');
  });

  describe.each(['IPv4', 'IPv6'] as const)('%s', (family) => {
    const node = (): string => (family === 'IPv4' ? lab.node.ipv4 : lab.node.ipv6);

    it('ClusterIP over TCP from a pod and from the node reaches the endpoints, here and remote', async () => {
      const servers = new Set((await probeOk('a', 'tcp', address('web', family), 80, 4)).map((r) => r.server));
      expect(servers).toEqual(new Set(['pod-a', 'pod-c']));
      const [fromNode] = await probeOk('node', 'tcp', address('web', family), 80);
      expect(['pod-a', 'pod-c']).toContain(fromNode?.server);
    });

    it('ClusterIP over UDP', async () => {
      const [result] = await probeOk('a', 'udp', address('dns', family), 53);
      expect(result?.server).toBe('pod-b');
    });

    it('NodePort and external IP from an external client, masqueraded (externalTrafficPolicy Cluster)', async () => {
      const [viaNodePort] = await probeOk('external', 'tcp', node(), 30080);
      expect(['pod-a', 'pod-c']).toContain(viaNodePort?.server);
      expect(viaNodePort?.seenSource).not.toBe(EXTERNAL_CLIENT[family]);
      const [viaExternalIP] = await probeOk('external', 'tcp', address('web', family, 'external'), 80);
      expect(['pod-a', 'pod-c']).toContain(viaExternalIP?.server);
    });

    it('externalTrafficPolicy Local: the NodePort reaches only the local endpoint and keeps the client address', async () => {
      const results = await probeOk('external', 'tcp', node(), 30082, 3);
      expect(results.map((r) => [r.server, r.seenSource])).toEqual(Array(3).fill(['pod-b', EXTERNAL_CLIENT[family]]));
    });

    it('internalTrafficPolicy Local: the ClusterIP reaches only the local endpoint', async () => {
      const results = await probeOk('a', 'tcp', address('itp-local', family), 80, 3);
      expect(results.map((r) => r.server)).toEqual(['pod-b', 'pod-b', 'pod-b']);
    });

    it('ClientIP affinity: one client keeps meeting the same endpoint', async () => {
      const results = await probeOk('a', 'tcp', address('sticky', family), 80, 4);
      expect(new Set(results.map((r) => r.server)).size).toBe(1);
    });

    it('loadBalancerSourceRanges: a client inside them reaches the LB IP, one outside is dropped', async () => {
      const [allowed] = await probeOk('external', 'tcp', address('lb-allowed', family, 'lb'), 80);
      expect(allowed?.server).toBe('pod-a');
      const [denied] = await lab.probeRepeatedly(
        from('external'),
        { proto: 'tcp', ip: address('lb-denied', family, 'lb'), port: 80, timeoutMs: 2_000 },
        1,
      );
      expect(denied).toMatchObject({ ok: false, error: 'timeout' });
      // The same Service's ClusterIP is not guarded.
      const [cluster] = await probeOk('a', 'tcp', address('lb-denied', family), 80);
      expect(cluster?.server).toBe('pod-a');
    });

    it('SCTP: ClusterIP and NodePort virtual servers carry an association to the endpoint (socat)', async () => {
      expect(await ipvsadm()).toContain(
        family === 'IPv4' ? `SCTP ${address('sctp', family)}:7777 rr` : `SCTP [${address('sctp', family)}]:7777 rr`,
      );
      for (const [who, ip, port] of [
        ['a', address('sctp', family), 7777],
        ['external', node(), 30077],
      ] as const) {
        const target = family === 'IPv4' ? `${ip}:${port}` : `[${ip}]:${port}`;
        // -u: read the association only (SCTP has no half-close: an EOF on stdin would end it early).
        const { stdout } = await from(who).exec(['socat', '-T', '10', '-u', `SCTP-CONNECT:${target}`, '-'], {
          timeoutMs: 30_000,
        });
        expect(stdout.trim(), `${who} -> ${target}`).toBe('sctp pod-b');
      }
    });

    it('a Service without endpoints refuses connections', async () => {
      const [result] = await lab.probeRepeatedly(
        from('a'),
        { proto: 'tcp', ip: address('empty', family), port: 80, timeoutMs: 2_000 },
        1,
      );
      expect(result).toMatchObject({ ok: false, error: 'refused' });
    });
  });

  it("a health-check node port at a Service's address is not rejected, another port there is (upstream's KUBE-IPVS-FILTER)", async () => {
    // A listener on the node on both ports (as a health-check server on 0.0.0.0): only the
    // filter table's reject of non-Service ports at kube-ipvs0's addresses tells them apart.
    const listener = await startEchoServer(lab.node.namespace, 'node', [HEALTH_CHECK_PORT, HEALTH_CHECK_PORT + 1]);
    try {
      for (const family of ['IPv4', 'IPv6'] as const) {
        const ip = address('etp-local', family);
        const [open] = await lab.probeRepeatedly(
          from('a'),
          { proto: 'tcp', ip, port: HEALTH_CHECK_PORT, timeoutMs: 2_000 },
          1,
        );
        expect(open, `${family} ${ip}:${HEALTH_CHECK_PORT}`).toMatchObject({ ok: true, server: 'node' });
        const [other] = await lab.probeRepeatedly(
          from('a'),
          { proto: 'tcp', ip, port: HEALTH_CHECK_PORT + 1, timeoutMs: 2_000 },
          1,
        );
        expect(other, `${family} ${ip}:${HEALTH_CHECK_PORT + 1}`).toMatchObject({ ok: false, error: 'refused' });
      }
    } finally {
      await listener.stop();
    }
  });

  it('graceful termination: a removed endpoint keeps its open connection at weight 0, gets no new ones, and goes when it closes', async () => {
    const vip = address('held', 'IPv4');
    const hold = (ip: string) =>
      lab.pod('pod-a').namespace.spawn([process.execPath, new URL('rst-hold.mjs', import.meta.url).pathname, ip, '90']);
    const client = hold(vip);
    try {
      await client.waitForOutput('reply ', scaledTimeout(15_000));
      const holder = /reply (pod-[ab]) hello/.exec(client.output)?.[1];
      expect(holder, client.output).toBeDefined();
      const [removedIp, keptIp] = holder === 'pod-a' ? ['198.18.1.10', '198.18.1.11'] : ['198.18.1.11', '198.18.1.10'];
      await backend.sync(
        request(holder === 'pod-a' ? scenario.heldWithoutA : scenario.heldWithoutB, false, revision++),
      );
      expect(await ipvsadm()).toContain(`-> ${removedIp}:${HOLD} Masq 0 1 0`);
      // The open connection still works; new connections go to the other endpoint only.
      process.kill(client.pid ?? 0, 'SIGUSR1');
      await client.waitForOutput(`reply ${holder} still`, scaledTimeout(10_000));
      const second = hold(vip);
      try {
        await second.waitForOutput('reply ', scaledTimeout(15_000));
        expect(second.output).toContain(`reply ${holder === 'pod-a' ? 'pod-b' : 'pod-a'} hello`);
      } finally {
        await second.stop();
      }
      await client.stop();
      let lines: string[] = [];
      for (let round = 0; round < 20; round++) {
        await sleep(1_000);
        await backend.reapDrained();
        lines = await ipvsadm();
        if (!lines.some((l) => l.startsWith(`-> ${removedIp}:${HOLD}`))) break;
      }
      expect(lines.filter((l) => l.startsWith(`-> ${removedIp}:${HOLD}`))).toEqual([]);
      expect(lines).toContain(`-> ${keptIp}:${HOLD} Masq 1 0 0`);
    } finally {
      await client.stop();
    }
  });

  describeFaults({
    lab: () => lab,
    backend: () => backend,
    options: () => options,
    scenario,
    sync: (b, state, full) => b.sync(request(state, full, revision++)),
    address: (name, kind = 'cluster') => address(name, 'IPv4', kind),
  });

  it('cleanup removes the virtual servers, the nftables tables and kube-ipvs0', async () => {
    await backend.cleanup();
    expect((await ipvsadm()).filter((l) => /^(TCP|UDP|SCTP) /.test(l))).toEqual([]);
    const { stdout } = await lab.node.namespace.exec(['nft', 'list', 'tables']);
    expect(stdout).not.toContain('kpng-ipvs');
    const link = await lab.node.namespace.exec(['ip', 'link', 'show', 'kube-ipvs0'], { check: false });
    expect(link.exitCode).not.toBe(0);
  });
});
