/**
 * `explain` against the fake HNS: a node programmed by the backend from core's node view, then one
 * Service's load balancers read back through the `Hns` seam (no Windows here: HNS is the fake).
 */
import { serviceKey, type ServiceModel } from '@kpng/core';
import { formatExplain, runExplain } from '@kpng/core/runtime';
import { AnsweringExecer } from '@kpng/kit/testing';
import { fixtureModel, nodeState, OTHER_NODE, type ServiceFixture } from '@kpng/nft/testing';
import { describe, expect, it } from 'vitest';
import { backend } from '../cli/backend-module.js';
import type { Hns } from '../hcn/hns.js';
import { fakeNode, NETWORK } from '../testing/harness.js';
import { explainWinKernel } from './explain.js';

const LOCAL = '198.18.1.10';
const REMOTE = '198.18.2.10';
const web: ServiceFixture = {
  name: 'web',
  clusterIPs: ['198.19.0.10'],
  ports: [{ port: 80, nodePort: 30080 }],
  loadBalancerIPs: ['203.0.113.10'],
  endpoints: [{ ip: LOCAL }, { ip: REMOTE, node: OTHER_NODE }],
  preserveDestination: true,
};
const other: ServiceFixture = {
  name: 'other',
  clusterIPs: ['198.19.0.11'],
  ports: [{ port: 80, nodePort: 30081 }],
  endpoints: [{ ip: LOCAL }],
};
const SERVICES = [web, other];
const model = (name: string): ServiceModel => fixtureModel(SERVICES).service(serviceKey('default', name))!;
const REF = { namespace: 'default', name: 'web' };

async function programmed() {
  const node = fakeNode({ localPods: [LOCAL] }, { forwardHealthCheckVip: false });
  await node.sync(nodeState(SERVICES));
  return node;
}

describe('explain (fake HNS)', () => {
  it("prints the Service's load balancers with flags and endpoints, none of another Service's, and runs no process", async () => {
    const node = await programmed();
    const execer = new AnsweringExecer({});
    const lookups: string[] = [];
    const reports = await explainWinKernel(
      { networkName: NETWORK },
      REF,
      { execer, lookupService: () => (lookups.push('web'), Promise.resolve(model('web'))) },
      { hns: node.hns },
    );
    expect(lookups).toEqual(['web']);
    expect(execer.calls).toEqual([]);
    const text = formatExplain(REF, reports);
    const id = (vip: string, port: number) =>
      node.hns
        .loadBalancers()
        .find((lb) => (lb.FrontendVIPs?.[0] ?? 'node') === vip && lb.PortMappings?.[0]?.ExternalPort === port)!.ID!;
    const ep = (ip: string) => node.hns.endpoints().find((e) => e.IpConfigurations?.[0]?.IpAddress === ip)!.ID!;
    expect(text).toBe(
      [
        `# default/web in HNS network ${NETWORK} (L2Bridge), Service annotated preserve-destination`,
        `ClusterIP load balancer ${id('198.19.0.10', 80)}:`,
        '  frontend 198.19.0.10 TCP 80 -> endpoint port 8080',
        '  load balancer flags: none',
        '  port mapping flags: none',
        '  distribution: None',
        `  endpoint ${LOCAL} (local, ${ep(LOCAL)})`,
        `  endpoint ${REMOTE} (remote, ${ep(REMOTE)})`,
        `NodePort load balancer ${id('node', 30080)}:`,
        '  frontend the node (no frontend VIP) TCP 30080 -> endpoint port 8080',
        '  load balancer flags: none',
        '  port mapping flags: LocalRoutedVIP, VipExternalIP',
        '  distribution: None',
        `  endpoint ${LOCAL} (local, ${ep(LOCAL)})`,
        `LoadBalancerIP load balancer ${id('203.0.113.10', 80)}:`,
        '  frontend 203.0.113.10 TCP 80 -> endpoint port 8080',
        '  load balancer flags: DSR',
        '  port mapping flags: UseMux, PreserveDIP, VipExternalIP',
        '  distribution: None',
        `  endpoint ${LOCAL} (local, ${ep(LOCAL)})`,
        '',
      ].join('\n'),
    );
    expect(node.hns.calls.filter((c) => c.op !== 'createLoadBalancer' && c.op !== 'createEndpoint')).toEqual([]);
  });

  it('selects the forwarded health-check VIP; a Service with nothing programmed gets no section', async () => {
    const node = fakeNode(
      { localPods: [LOCAL], rootEndpoint: 'cbr0-host' },
      {
        forwardHealthCheckVip: true,
        rootHnsEndpointName: 'cbr0-host',
      },
    );
    await node.sync(nodeState(SERVICES));
    const [report] = await explainWinKernel(
      { networkName: NETWORK, forwardHealthCheckVip: true },
      REF,
      { execer: new AnsweringExecer({}), lookupService: () => Promise.resolve(model('web')) },
      { hns: node.hns },
    );
    expect(report!.sections.map((s) => s.title.split(' ')[0])).toEqual([
      'ClusterIP',
      'NodePort',
      'LoadBalancerIP',
      'HealthCheck',
    ]);
    expect(report!.sections[3]!.lines.map((l) => l.text)).toContain(
      'frontend 203.0.113.10 TCP 10256 -> endpoint port 10256',
    );
    const missing: ServiceModel = { ...model('other'), name: 'gone', clusterIPs: ['198.19.0.99'], ports: [] };
    const [none] = await explainWinKernel(
      { networkName: NETWORK },
      { namespace: 'default', name: 'gone' },
      { execer: new AnsweringExecer({}), lookupService: () => Promise.resolve(missing) },
      { hns: node.hns },
    );
    expect(none!.sections).toEqual([]);
    expect(formatExplain({ namespace: 'default', name: 'gone' }, [none!])).toContain(
      '(nothing programmed for this Service)',
    );
  });

  it('without HNS (Linux), or without the API server, says so and reads nothing', async () => {
    const lookups: string[] = [];
    const ctx = {
      execer: new AnsweringExecer({}),
      lookupService: () => (lookups.push('x'), Promise.resolve(model('web'))),
    };
    await expect(explainWinKernel({ networkName: NETWORK }, REF, ctx, { platform: 'linux' })).rejects.toThrow(
      /^HNS \(the Windows Host Compute Network service\) does not exist on linux: .*run explain on the Windows node$/,
    );
    expect(lookups).toEqual([]);
    const node = await programmed();
    await expect(
      explainWinKernel({ networkName: NETWORK }, REF, { execer: new AnsweringExecer({}) }, { hns: node.hns }),
    ).rejects.toThrow(/HNS keeps no Service names: explain needs the API server to find default\/web/);
  });

  it('an HNS that fails a read, or a network that is gone: a clear error, or the endpoints by ID', async () => {
    const node = await programmed();
    const ctx = { execer: new AnsweringExecer({}), lookupService: () => Promise.resolve(model('web')) };
    const h = node.hns;
    const failing: Hns = {
      getNetworkByName: (name) => h.getNetworkByName(name),
      listEndpoints: (id) => h.listEndpoints(id),
      createEndpoint: (id, settings) => h.createEndpoint(id, settings),
      deleteEndpoint: (id) => h.deleteEndpoint(id),
      listLoadBalancers: () => Promise.reject(new Error('HcnEnumerateLoadBalancers failed: 0x803b0001\nmore')),
      createLoadBalancer: (settings) => h.createLoadBalancer(settings),
      deleteLoadBalancer: (id) => h.deleteLoadBalancer(id),
    };
    await expect(explainWinKernel({ networkName: NETWORK }, REF, ctx, { hns: failing })).rejects.toThrow(
      /^HNS not readable: HcnEnumerateLoadBalancers failed: 0x803b0001$/,
    );
    const [report] = await explainWinKernel({ networkName: 'elsewhere' }, REF, ctx, { hns: node.hns });
    expect(report!.source).toBe(
      'HNS network elsewhere (not found: endpoints shown by ID), Service annotated preserve-destination',
    );
    expect(report!.sections[0]!.lines.at(-1)!.text).toMatch(
      /^endpoint [0-9a-f-]{36}: not an endpoint of the network$/i,
    );
  });

  it('`kpng-win-kernel explain` on Linux: exit 1 with the reason, after the usual usage checks (2)', async () => {
    const err: string[] = [];
    const stderr = (t: string): void => void err.push(t);
    const io = { stderr, lookupService: () => Promise.resolve(model('web')) };
    expect(await runExplain('kpng-win-kernel', backend, ['default/web'], { ...io })).toBe(2);
    expect(err.at(-1)).toMatch(/--network-name is required/);
    expect(await runExplain('kpng-win-kernel', backend, ['default/web', '--network-name', NETWORK], io)).toBe(1);
    expect(err.at(-1)).toMatch(
      /^kpng-win-kernel explain: HNS \(the Windows Host Compute Network service\) does not exist on linux/,
    );
  });
});
