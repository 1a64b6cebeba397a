import type { NodeLocalState, SyncRequest } from '@kpng/core';
import { clusterIPs, externalIPs, nodeState, on, POD, type ServiceFixture } from '@kpng/core/testing';
import { FakeNft } from '@kpng/nftables/testing';
import { Registry } from 'prom-client';
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeIpvs } from '../ipvs/fake-ipvs.js';
import { FakeHostExecer } from '../../test/support/fake-host.js';
import { IpvsBackend } from './ipvs-backend.js';
import type { IpvsBackendOptions } from './options.js';

const SILENT = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, with: () => SILENT };
const sync = (state: NodeLocalState, full: boolean, revision = 1): SyncRequest => ({
  state,
  changes: { triggerTimes: new Map(), nodeChanged: false },
  full,
  revision,
});
const web = (endpoints = on('a', 'b', 'c'), extra: Partial<ServiceFixture> = {}): ServiceFixture => ({
  name: 'web',
  clusterIPs: clusterIPs(10),
  endpoints,
  ...extra,
});

/** The fake's table as `ipvsadm -Ln`-like lines, sorted. */
function table(fake: FakeIpvs): string[] {
  return fake
    .listVirtualServers()
    .flatMap((vs) => [
      `${vs.protocol} ${vs.address}:${vs.port} ${vs.scheduler}${vs.persistentSeconds > 0 ? ` persistent ${vs.persistentSeconds}` : ''}`,
      ...fake.listRealServers(vs).map((rs) => `  ${vs.address}:${vs.port} -> ${rs.address}:${rs.port} w${rs.weight}`),
    ])
    .sort();
}

describe('IpvsBackend (FakeIpvs, FakeNft, fake ip/sysctl)', () => {
  let kernel: FakeIpvs;
  let host: FakeHostExecer;
  let nft: FakeNft;
  let backend: IpvsBackend;
  const create = async (options: Partial<IpvsBackendOptions> = {}): Promise<IpvsBackend> => {
    const b = new IpvsBackend({ kernel, nft, execer: host, logger: SILENT, drainIntervalMs: 3_600_000, ...options });
    await b.setup();
    return b;
  };
  beforeEach(async () => {
    kernel = new FakeIpvs();
    host = new FakeHostExecer();
    nft = new FakeNft();
    backend = await create();
  });

  it('setup creates kube-ipvs0 and sets the IPVS sysctls, each alone', () => {
    expect(host.link).toBe(true);
    expect(host.sysctls.get('net.ipv4.vs.conntrack')).toBe('1');
    expect(host.sysctls.get('net.ipv4.vs.expire_nodest_conn')).toBe('1');
    expect(host.sysctls.get('net.ipv4.vs.expire_quiescent_template')).toBe('1');
    expect(host.sysctls.get('net.ipv4.ip_forward')).toBe('1');
    expect(host.sysctls.get('net.ipv6.conf.all.forwarding')).toBe('1');
    expect(host.sysctls.get('net.ipv4.conf.all.arp_ignore')).toBe('0'); // strictARP off
    const writes = host.commands.filter((c) => c.startsWith('sysctl -q -w'));
    expect(writes.every((c) => c.split(' ').length === 4)).toBe(true);
  });

  it('prepareNode: a node without IPv6 skips IPv6 forwarding; a refused IPv4 sysctl fails by name, as upstream', async () => {
    host = new FakeHostExecer();
    host.sysctls.delete('net.ipv6.conf.all.forwarding');
    const b = new IpvsBackend({ kernel, nft, execer: host, logger: SILENT, kernelRelease: '6.1.0-27-amd64' });
    const report = await b.prepareNode();
    expect(report.skipped).toEqual(['net.ipv6.conf.all.forwarding']);
    expect(report.failed).toEqual([]);
    expect(host.sysctls.get('net.ipv4.vs.conn_reuse_mode')).toBe('1'); // fixed since 5.9: left alone
    host.sysctls.set('net.ipv4.vs.conntrack', '0');
    host.readOnly.add('net.ipv4.vs.conntrack');
    await expect(b.prepareNode()).rejects.toThrow(/cannot set sysctl net\.ipv4\.vs\.conntrack \(.*permission denied/);
  });

  it('prepareNode: a refused IPv6 forwarding is a warning (upstream never writes it); conn_reuse_mode=0 on 4.1-5.8', async () => {
    host = new FakeHostExecer();
    host.readOnly.add('net.ipv6.conf.all.forwarding');
    const b = new IpvsBackend({ kernel, nft, execer: host, logger: SILENT, kernelRelease: '5.4.0-150-generic' });
    const report = await b.prepareNode();
    expect(report.failed).toEqual([
      { name: 'net.ipv6.conf.all.forwarding', fatal: false, error: expect.stringContaining('permission denied') },
    ]);
    expect(host.sysctls.get('net.ipv4.vs.conn_reuse_mode')).toBe('0');
    expect(host.sysctls.get('net.ipv4.ip_forward')).toBe('1');
  });

  it('one virtual server per ClusterIP, external IP and node address (NodePort) and port, real servers from core lists', async () => {
    await backend.sync(
      sync(
        nodeState([web(on('a', 'c'), { externalIPs: externalIPs(5), ports: [{ port: 80, nodePort: 30080 }] })]),
        true,
      ),
    );
    const v4 = table(kernel).filter((l) => !l.includes(':') || /\d+\.\d+\.\d+\.\d+:/.test(l));
    expect(v4).toEqual([
      '  198.18.255.1:30080 -> 198.18.1.10:8080 w1',
      '  198.18.255.1:30080 -> 198.18.2.10:8080 w1',
      '  198.19.0.10:80 -> 198.18.1.10:8080 w1',
      '  198.19.0.10:80 -> 198.18.2.10:8080 w1',
      '  203.0.113.5:80 -> 198.18.1.10:8080 w1',
      '  203.0.113.5:80 -> 198.18.2.10:8080 w1',
      'TCP 198.18.255.1:30080 rr',
      'TCP 198.19.0.10:80 rr',
      'TCP 203.0.113.5:80 rr',
    ]);
    expect(table(kernel)).toContain(`TCP 2001:db8:5e::a:80 rr`);
    expect([...host.addresses].sort()).toEqual(['198.19.0.10', '2001:db8:5e::a', '2001:db8:eb::5', '203.0.113.5']);
  });

  it('ClientIP affinity is persistence; the scheduler is configurable', async () => {
    backend = await create({ config: { scheduler: 'lc' } });
    await backend.sync(sync(nodeState([web(on('a'), { affinity: 600 })]), true));
    expect(table(kernel)).toContain('TCP 198.19.0.10:80 lc persistent 600');
  });

  it('externalTrafficPolicy Local: NodePort and external IP real servers are the local endpoints only', async () => {
    await backend.sync(
      sync(
        nodeState([
          web(on('a', 'c'), {
            externalIPs: externalIPs(5),
            ports: [{ port: 80, nodePort: 30080 }],
            externalLocal: true,
          }),
        ]),
        true,
      ),
    );
    const lines = table(kernel);
    expect(lines.filter((l) => l.startsWith('  203.0.113.5:80'))).toEqual(['  203.0.113.5:80 -> 198.18.1.10:8080 w1']);
    expect(lines.filter((l) => l.startsWith('  198.18.255.1:30080'))).toEqual([
      '  198.18.255.1:30080 -> 198.18.1.10:8080 w1',
    ]);
    expect(lines.filter((l) => l.startsWith('  198.19.0.10:80'))).toHaveLength(2);
  });

  it('after one endpoint change, a partial sync touches only that real server', async () => {
    await backend.sync(
      sync(nodeState([web(on('a', 'b')), { name: 'other', clusterIPs: clusterIPs(11), endpoints: on('a') }]), true),
    );
    kernel.calls.length = 0;
    await backend.sync(
      sync(
        nodeState([web(on('a', 'b', 'c')), { name: 'other', clusterIPs: clusterIPs(11), endpoints: on('a') }]),
        false,
        2,
      ),
    );
    expect(kernel.calls).toEqual([
      { op: 'addRealServer', vs: 'TCP/198.19.0.10/80', rs: `${POD.c.v4}:8080`, weight: 1 },
      { op: 'addRealServer', vs: 'TCP/[2001:db8:5e::a]/80', rs: `[${POD.c.v6}]:8080`, weight: 1 },
    ]);
    kernel.calls.length = 0;
    await backend.sync(
      sync(nodeState([web(on('a', 'b')), { name: 'other', clusterIPs: clusterIPs(11), endpoints: on('a') }]), true, 3),
    );
    // c had no connections (read from the kernel on this full sync): deleted at once.
    expect(kernel.calls).toEqual([
      { op: 'deleteRealServer', vs: 'TCP/198.19.0.10/80', rs: `${POD.c.v4}:8080`, weight: 0 },
      { op: 'deleteRealServer', vs: 'TCP/[2001:db8:5e::a]/80', rs: `[${POD.c.v6}]:8080`, weight: 0 },
    ]);
  });

  it('a partial sync writes only the nftables elements that changed', async () => {
    await backend.sync(sync(nodeState([web(on('a'))]), true));
    await backend.sync(sync(nodeState([web(on('a', 'b'))]), false, 2));
    const ops = nft.lastTransaction?.operations.map(
      (o) =>
        `${o.verb} ${o.object.kind} ${o.object.kind === 'element' ? `${o.object.set} ${o.object.key.join(' . ')}` : ''}`,
    );
    expect(ops).toEqual([
      `add element hairpin ${POD.b.v4} . tcp . 8080 . ${POD.b.v4}`,
      `add element hairpin ${POD.b.v6} . tcp . 8080 . ${POD.b.v6}`,
    ]);
    // A full sync still replaces the tables whole.
    await backend.sync(sync(nodeState([web(on('a', 'b'))]), true, 3));
    expect(nft.lastTransaction?.operations[0]?.object.kind).toBe('table');
  });

  it('graceful termination: a TCP real server with connections drains at weight 0 and goes when they end', async () => {
    const state = nodeState([web(on('a', 'b'))]);
    await backend.sync(sync(state, true));
    const vs = kernel.listVirtualServers().find((v) => v.address === '198.19.0.10');
    kernel.setConnections(vs!, { address: POD.b.v4, port: 8080 }, 3, 1);
    await backend.sync(sync(nodeState([web(on('a'))]), true, 2));
    expect(table(kernel).filter((l) => l.startsWith('  198.19.0.10'))).toEqual([
      `  198.19.0.10:80 -> ${POD.a.v4}:8080 w1`,
      `  198.19.0.10:80 -> ${POD.b.v4}:8080 w0`,
    ]);
    await backend.reapDrained();
    expect(table(kernel)).toContain(`  198.19.0.10:80 -> ${POD.b.v4}:8080 w0`);
    kernel.setConnections(vs!, { address: POD.b.v4, port: 8080 }, 0, 0);
    await backend.reapDrained();
    expect(table(kernel).filter((l) => l.startsWith('  198.19.0.10'))).toEqual([
      `  198.19.0.10:80 -> ${POD.a.v4}:8080 w1`,
    ]);
  });

  it('an endpoint that comes back while draining is restored to weight 1', async () => {
    await backend.sync(sync(nodeState([web(on('a', 'b'))]), true));
    await backend.sync(sync(nodeState([web(on('a'))]), false, 2));
    expect(table(kernel)).toContain(`  198.19.0.10:80 -> ${POD.b.v4}:8080 w0`);
    await backend.sync(sync(nodeState([web(on('a', 'b'))]), false, 3));
    expect(table(kernel)).toContain(`  198.19.0.10:80 -> ${POD.b.v4}:8080 w1`);
  });

  it('UDP real servers are removed at once', async () => {
    const dns = (endpoints: NonNullable<ServiceFixture['endpoints']>): ServiceFixture => ({
      name: 'dns',
      clusterIPs: clusterIPs(53),
      ports: [{ port: 53, protocol: 'UDP', targetPort: 5353 }],
      endpoints,
    });
    await backend.sync(sync(nodeState([dns(on('a', 'b'))]), true));
    await backend.sync(sync(nodeState([dns(on('a'))]), false, 2));
    expect(table(kernel).filter((l) => l.startsWith('  198.19.0.53'))).toEqual([
      `  198.19.0.53:53 -> ${POD.a.v4}:5353 w1`,
    ]);
  });

  it('after a sync, stale UDP flows of the changed Services are cleaned (all on a full sync), per family; a failure is only logged', async () => {
    const requests: { family: string; services: string[]; nodePort: boolean }[] = [];
    let fail = false;
    const conntrack = {
      clean: async (r: {
        family: string;
        services: Iterable<{ key: string }>;
        isNodePortAddress: (ip: string) => boolean;
      }) => {
        if (fail) throw new Error('conntrack: not found');
        requests.push({
          family: r.family,
          services: [...r.services].map((s) => s.key),
          nodePort: r.isNodePortAddress('198.18.255.1'),
        });
        return 1;
      },
    };
    const warnings: string[] = [];
    const logger = { ...SILENT, warn: (msg: string) => void warnings.push(msg) };
    const registry = new Registry();
    const b = await create({ conntrack, logger, metrics: registry });
    const dns: ServiceFixture = {
      name: 'dns',
      clusterIPs: clusterIPs(53),
      ports: [{ port: 53, protocol: 'UDP', targetPort: 5353 }],
      endpoints: on('a'),
    };
    const node = { nodePortAddresses: { IPv4: ['198.18.255.1'], IPv6: [] } } as const;
    const state = (s: NodeLocalState): NodeLocalState => ({ ...s, node: { ...s.node, ...node } });
    await b.sync(sync(state(nodeState([web(), dns])), true));
    expect(requests).toEqual([
      { family: 'IPv4', services: ['default/dns', 'default/web'], nodePort: true },
      { family: 'IPv6', services: ['default/dns', 'default/web'], nodePort: false },
    ]);
    requests.length = 0;
    const partial = (updated: string[]): SyncRequest => ({
      ...sync(state(nodeState([web(on('a')), dns])), false, 2),
      changes: { triggerTimes: new Map(), nodeChanged: false, updatedServices: new Set(updated) as never },
    });
    await b.sync(partial(['default/web'])); // no UDP port among the changed: nothing to clean
    expect(requests).toEqual([]);
    await b.sync(partial(['default/dns']));
    expect(requests.map((r) => r.services)).toEqual([['default/dns'], ['default/dns']]);
    expect(await registry.getSingleMetricAsString('kubeproxy_conntrack_reconciler_deleted_entries_total')).toContain(
      'kubeproxy_conntrack_reconciler_deleted_entries_total{ip_family="IPv4"} 2',
    );
    fail = true;
    await expect(b.sync(partial(['default/dns']))).resolves.toEqual({});
    expect(warnings).toContain('stale conntrack cleanup failed');
  });

  it('a removed Service loses its virtual servers and its addresses', async () => {
    await backend.sync(
      sync(nodeState([web(), { name: 'gone', clusterIPs: clusterIPs(12), endpoints: on('a') }]), true),
    );
    await backend.sync(sync(nodeState([web()]), false, 2));
    expect(table(kernel).some((l) => l.includes('198.19.0.12'))).toBe(false);
    expect(host.addresses.has('198.19.0.12')).toBe(false);
  });

  it('a kernel refusal fails the sync; the next full sync reads the kernel and converges', async () => {
    const state = nodeState([web(on('a', 'b'))]);
    kernel.failNext('addRealServer', 12);
    await expect(backend.sync(sync(state, true))).rejects.toMatchObject({ code: 'ENOMEM' });
    await backend.sync(sync(state, true, 2));
    const fresh = new FakeIpvs();
    const reference = await create({ kernel: fresh, nft: new FakeNft(), execer: new FakeHostExecer() });
    await reference.sync(sync(state, true));
    expect(table(kernel)).toEqual(table(fresh));
  });

  it('a hung `ip` is killed at the write timeout: the sync fails as WRITE_TIMED_OUT, the full retry converges', async () => {
    /** `ip -batch` (the Service addresses) hangs until its timeout aborts it, while `hang` is set. */
    class HangingHost extends FakeHostExecer {
      hang = true;
      killed = 0;
      override run(argv: readonly string[], stdin: string, signal?: AbortSignal) {
        if (!this.hang || !argv.includes('-batch')) return super.run(argv, stdin);
        return new Promise<never>((_resolve, reject) =>
          signal?.addEventListener('abort', () => {
            this.killed++;
            reject(new Error('killed'));
          }),
        );
      }
    }
    const hanging = new HangingHost();
    backend = await create({ execer: hanging, writeTimeoutMs: 20 });
    const state = nodeState([web(on('a', 'b'))]);
    await expect(backend.sync(sync(state, true))).rejects.toMatchObject({
      code: 'WRITE_TIMED_OUT',
      message: expect.stringMatching(/ip -batch - did not finish within 20 ms/),
    });
    expect(hanging.killed).toBe(1);
    hanging.hang = false;
    await backend.sync(sync(state, true, 2));
    expect(hanging.addresses.has('198.19.0.10')).toBe(true);
    expect(table(kernel).some((l) => l.startsWith('TCP 198.19.0.10:'))).toBe(true);
  });

  it('virtual servers inside --ipvs-exclude-cidrs are left alone, also by cleanup', async () => {
    kernel.addVirtualServer({
      family: 'IPv4',
      protocol: 'TCP',
      address: '10.96.0.1',
      port: 443,
      scheduler: 'rr',
      persistentSeconds: 0,
    });
    backend = await create({ config: { excludeCIDRs: ['10.96.0.0/12'] } });
    await backend.sync(sync(nodeState([web()]), true));
    expect(table(kernel)).toContain('TCP 10.96.0.1:443 rr');
    await backend.cleanup();
    expect(table(kernel)).toEqual(['TCP 10.96.0.1:443 rr']);
    expect(host.link).toBe(false);
    expect(nft.dump()).not.toContain('kpng-ipvs');
  });

  it('the nftables table holds the masquerade, reject and drop sets', async () => {
    backend = await create({ config: { clusterCIDRs: ['198.18.0.0/16'] } });
    await backend.sync(
      sync(
        nodeState([
          web(on('a'), { ports: [{ port: 80, nodePort: 30080 }] }),
          { name: 'empty', clusterIPs: clusterIPs(13), endpoints: [] },
          {
            name: 'local',
            clusterIPs: clusterIPs(14),
            externalIPs: externalIPs(6),
            externalLocal: true,
            endpoints: on('c'),
          },
        ]),
        true,
      ),
    );
    const dump = nft.dump();
    expect(dump).toMatch(/element ip kpng-ipvs reject_ports \{ 198\.19\.0\.13 \. tcp \. 80 \}/);
    expect(dump).toMatch(/element ip kpng-ipvs drop_ports \{ 203\.0\.113\.6 \. tcp \. 80 \}/);
    expect(dump).toMatch(/element ip kpng-ipvs masq_always \{ 198\.18\.255\.1 \. tcp \. 30080 \}/);
    expect(dump).toMatch(/element ip kpng-ipvs masq_outside \{ 198\.19\.0\.10 \. tcp \. 80 \}/);
    expect(dump).toMatch(/element ip kpng-ipvs hairpin \{ 198\.18\.1\.10 \. tcp \. 8080 \. 198\.18\.1\.10 \}/);
  });

  it('metrics: table sizes after a sync, refused netlink calls and failed nft transactions on the registry', async () => {
    const registry = new Registry();
    const nftFailing = new (class extends FakeNft {
      fail = false;
      override async run(tx: Parameters<FakeNft['run']>[0]): Promise<void> {
        if (this.fail) throw new Error('nft: injected failure');
        return super.run(tx);
      }
    })();
    backend = await create({ metrics: registry, nft: nftFailing });
    const value = async (name: string, labels: Record<string, string>): Promise<number | undefined> =>
      (await registry.getSingleMetric(name)?.get())?.values.find((v) =>
        Object.entries(labels).every(([k, l]) => v.labels[k] === l),
      )?.value;
    await backend.sync(sync(nodeState([web(on('a', 'b'), { ports: [{ port: 80, nodePort: 30080 }] })]), true));
    expect(await value('kpng_ipvs_virtual_servers', { ip_family: 'IPv4' })).toBe(2);
    expect(await value('kpng_ipvs_real_servers', { ip_family: 'IPv4' })).toBe(4);
    expect(await value('kpng_ipvs_draining_real_servers', { ip_family: 'IPv4' })).toBe(0);

    kernel.failNext('addRealServer', 12);
    await expect(backend.sync(sync(nodeState([web(on('a', 'b', 'c'))]), false, 2))).rejects.toThrow();
    expect(await value('kpng_ipvs_netlink_failures_total', { operation: 'addRealServer' })).toBe(1);

    nftFailing.fail = true;
    await expect(backend.sync(sync(nodeState([web(on('a'))]), true, 3))).rejects.toThrow('injected');
    expect(await value('kubeproxy_sync_proxy_rules_nftables_sync_failures_total', { ip_family: 'IPv4' })).toBe(1);
    // Upstream ipvs mode's name for a failed filtering write, for its dashboards and alerts.
    expect(await value('kubeproxy_sync_proxy_rules_iptables_restore_failures_total', { ip_family: 'IPv4' })).toBe(1);
  });
});

describe('values that fail validation never reach ip -batch, nft or netlink', () => {
  it('a Service with an injected LB IP renders as deleted, an injected endpoint is left out; both counted', async () => {
    const kernel = new FakeIpvs();
    const host = new FakeHostExecer();
    const registry = new Registry();
    const backend = new IpvsBackend({
      kernel,
      nft: new FakeNft(),
      execer: host,
      logger: SILENT,
      metrics: registry,
      drainIntervalMs: 3_600_000,
    });
    await backend.setup();
    const state = nodeState([
      web(on('a', 'b')),
      { name: 'lb', clusterIPs: clusterIPs(11), loadBalancerIPs: ['203.0.113.9'], endpoints: on('a') },
    ]);
    // What a hostile stream could decode: text in address fields.
    const hostile = structuredClone(state) as { services: any[]; node: any };
    const lb = hostile.services.find((s) => s.name === 'lb');
    lb.families.IPv4.loadBalancerIPs = ['203.0.113.9/32 dev lo\naddr add 203.0.113.10'];
    const webV4 = hostile.services.find((s) => s.name === 'web').ports[0].endpoints.IPv4;
    webV4.cluster[0].ip = '198.18.1.10 ';
    await backend.sync(sync(hostile as NodeLocalState, true));
    const batches = host.commands.filter((c) => c.startsWith('ip -batch'));
    expect(batches.length).toBeGreaterThan(0);
    expect([...host.addresses].sort()).toEqual([...clusterIPs(10)].sort());
    // web's IPv4 ClusterIP keeps its other endpoint.
    expect(table(kernel).filter((l) => l.includes('-> 198.18.'))).toHaveLength(1);
    const refused = await registry.getSingleMetric('kpng_render_refused_total')!.get();
    expect(refused.values.map((v) => [v.labels, v.value])).toEqual([
      [{ backend: 'ipvs', kind: 'Service', reason: 'address' }, 1],
      [{ backend: 'ipvs', kind: 'endpoint', reason: 'address' }, 1],
    ]);
    await backend.cleanup();
  });
});
