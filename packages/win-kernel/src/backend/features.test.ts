/**
 * Every Service feature that applies on Windows, rendered into the fake HNS (L2Bridge network):
 * which load balancers exist, with which flags and which endpoints. The fake HNS validates each
 * document against HNS's schema and rules as it is created.
 */
import { describe, expect, it } from 'vitest';
import { nodeState, OTHER_NODE, type ServiceFixture } from '@kpng/nft/testing';
import { endpointIps, fakeNode, lbOn, remoteEndpoints } from '../testing/harness.js';

const LOCAL = '198.18.1.10';
const LOCAL2 = '198.18.1.11';
const REMOTE = '198.18.2.10';
const eps = [{ ip: LOCAL }, { ip: REMOTE, node: OTHER_NODE }];
const svc = (over: Partial<ServiceFixture>): ServiceFixture => ({
  name: 'web',
  clusterIPs: ['198.19.0.10'],
  endpoints: eps,
  ...over,
});

async function programmed(
  services: ServiceFixture[],
  options: Parameters<typeof fakeNode>[1] = {},
  spec: Parameters<typeof fakeNode>[0] = {},
) {
  const node = fakeNode({ localPods: [LOCAL, LOCAL2, '2001:db8:1::10'], ...spec }, options);
  await node.sync(nodeState(services));
  return node;
}

describe('fake HNS: Service features on an L2Bridge network', () => {
  it('ClusterIP: one load balancer on the VIP, local and remote endpoints; the remote one created as an HNS remote endpoint', async () => {
    const { hns } = await programmed([svc({})]);
    expect(hns.loadBalancers()).toHaveLength(1);
    const lb = lbOn(hns, '198.19.0.10', 80)!;
    expect(endpointIps(hns, lb)).toEqual([LOCAL, REMOTE]);
    expect(lb.PortMappings).toEqual([{ Protocol: 6, InternalPort: 8080, ExternalPort: 80 }]);
    expect(lb.Flags ?? 0).toBe(0);
    expect(lb.SourceVIP).toBeUndefined();
    expect(remoteEndpoints(hns)).toEqual([
      expect.objectContaining({ IpConfigurations: [{ IpAddress: REMOTE }], MacAddress: '02-11-c6-12-02-0a', Flags: 1 }),
    ]);
    expect(remoteEndpoints(hns)[0]!.Policies).toBeUndefined();
  });

  it('the exact settings string of a ClusterIP load balancer', async () => {
    const { hns, pods } = await programmed([svc({ endpoints: [{ ip: LOCAL }] })]);
    const create = hns.calls.find((c) => c.op === 'createLoadBalancer');
    expect(create).toMatchObject({
      settings: `{"HostComputeEndpoints":["${pods.get(LOCAL)}"],"FrontendVIPs":["198.19.0.10"],"PortMappings":[{"Protocol":6,"InternalPort":8080,"ExternalPort":80}],"SchemaVersion":{"Major":2,"Minor":0}}`,
    });
  });

  it('--enable-dsr sets DSR on ClusterIP load balancers only', async () => {
    const { hns } = await programmed([svc({ ports: [{ port: 80, nodePort: 30080 }] })], { enableDSR: true });
    expect(lbOn(hns, '198.19.0.10', 80)!.Flags).toBe(1);
    expect(lbOn(hns, 'node', 30080)!.Flags ?? 0).toBe(0);
  });

  it('NodePort: no VIP, LocalRoutedVIP and VipExternalIP, all endpoints under Cluster policy', async () => {
    const { hns } = await programmed([svc({ ports: [{ port: 80, nodePort: 30080 }] })]);
    const lb = lbOn(hns, 'node', 30080)!;
    expect(lb.FrontendVIPs).toBeUndefined();
    expect(lb.PortMappings).toEqual([{ Protocol: 6, InternalPort: 8080, ExternalPort: 30080, Flags: 2 | 16 }]);
    expect(endpointIps(hns, lb)).toEqual([LOCAL, REMOTE]);
  });

  it('external IPs and LoadBalancer IPs: one load balancer each, VipExternalIP', async () => {
    const { hns } = await programmed([
      svc({ externalIPs: ['203.0.113.5'], loadBalancerIPs: ['203.0.113.10', '203.0.113.11'] }),
    ]);
    expect(hns.loadBalancers()).toHaveLength(4);
    for (const vip of ['203.0.113.5', '203.0.113.10', '203.0.113.11']) {
      const lb = lbOn(hns, vip, 80)!;
      expect(lb.PortMappings![0]!.Flags).toBe(16);
      expect(lb.Flags ?? 0).toBe(0);
      expect(endpointIps(hns, lb)).toEqual([LOCAL, REMOTE]);
    }
  });

  it("externalTrafficPolicy Local: DSR and this node's endpoints on NodePort, external and LB IPs; the ClusterIP keeps all", async () => {
    const { hns } = await programmed([
      svc({
        externalLocal: true,
        ports: [{ port: 80, nodePort: 30080 }],
        externalIPs: ['203.0.113.5'],
        loadBalancerIPs: ['203.0.113.10'],
      }),
    ]);
    for (const [vip, port] of [
      ['node', 30080],
      ['203.0.113.5', 80],
      ['203.0.113.10', 80],
    ] as const) {
      const lb = lbOn(hns, vip, port)!;
      expect(lb.Flags, vip).toBe(1);
      expect(endpointIps(hns, lb), vip).toEqual([LOCAL]);
    }
    expect(endpointIps(hns, lbOn(hns, '198.19.0.10', 80))).toEqual([LOCAL, REMOTE]);
  });

  it('externalTrafficPolicy Local without local endpoints: no external load balancers', async () => {
    const { hns } = await programmed([
      svc({
        externalLocal: true,
        endpoints: [{ ip: REMOTE, node: OTHER_NODE }],
        ports: [{ port: 80, nodePort: 30080 }],
        loadBalancerIPs: ['203.0.113.10'],
      }),
    ]);
    expect(hns.loadBalancers().map((lb) => lb.FrontendVIPs?.[0] ?? 'node')).toEqual(['198.19.0.10']);
  });

  it("internalTrafficPolicy Local: the ClusterIP uses this node's endpoints only", async () => {
    const { hns } = await programmed([svc({ internalLocal: true, ports: [{ port: 80, nodePort: 30080 }] })]);
    expect(endpointIps(hns, lbOn(hns, '198.19.0.10', 80))).toEqual([LOCAL]);
    expect(endpointIps(hns, lbOn(hns, 'node', 30080))).toEqual([LOCAL, REMOTE]);
  });

  it('ClientIP session affinity: DistributionType SourceIP on every frontend of the port', async () => {
    const { hns } = await programmed([
      svc({ affinity: 10800, ports: [{ port: 80, nodePort: 30080 }], loadBalancerIPs: ['203.0.113.10'] }),
    ]);
    expect(hns.loadBalancers()).toHaveLength(3);
    for (const lb of hns.loadBalancers()) expect(lb.PortMappings![0]!.DistributionType).toBe(2);
  });

  it('preserve-destination (the annotation, marked by core): LB IPs get DSR, UseMux and PreserveDIP with local endpoints; the NodePort local endpoints', async () => {
    const ports = [{ port: 80, nodePort: 30080 }];
    const { hns } = await programmed([
      svc({ ports, loadBalancerIPs: ['203.0.113.10'], preserveDestination: true }),
      svc({ name: 'plain', clusterIPs: ['198.19.0.11'], ports: [{ port: 80, nodePort: 30081 }] }),
    ]);
    const lb = lbOn(hns, '203.0.113.10', 80)!;
    expect(lb.Flags).toBe(1);
    expect(lb.PortMappings![0]!.Flags).toBe(16 | 4 | 8);
    expect(endpointIps(hns, lb)).toEqual([LOCAL]);
    expect(endpointIps(hns, lbOn(hns, 'node', 30080))).toEqual([LOCAL]);
    expect(lbOn(hns, 'node', 30080)!.Flags ?? 0).toBe(0);
    // The ClusterIP keeps every endpoint, and a Service without the annotation is untouched.
    expect(endpointIps(hns, lbOn(hns, '198.19.0.10', 80))).toEqual([LOCAL, REMOTE]);
    expect(endpointIps(hns, lbOn(hns, 'node', 30081))).toEqual([LOCAL, REMOTE]);
    expect(lbOn(hns, 'node', 30081)!.PortMappings![0]!.Flags).toBe(2 | 16);
  });

  it('preserve-destination switched off: the next sync restores the routing mesh and drops the flags', async () => {
    const ports = [{ port: 80, nodePort: 30080 }];
    const node = await programmed([svc({ ports, loadBalancerIPs: ['203.0.113.10'], preserveDestination: true })]);
    await node.sync(nodeState([svc({ ports, loadBalancerIPs: ['203.0.113.10'] })]), { updated: ['web'] });
    const lb = lbOn(node.hns, '203.0.113.10', 80)!;
    expect(lb.Flags ?? 0).toBe(0);
    expect(lb.PortMappings![0]!.Flags).toBe(16);
    expect(endpointIps(node.hns, lb)).toEqual([LOCAL, REMOTE]);
    expect(endpointIps(node.hns, lbOn(node.hns, 'node', 30080))).toEqual([LOCAL, REMOTE]);
  });

  it('--forward-healthcheck-vip: each LB IP forwards the health-check port to the root HNS endpoint', async () => {
    const { hns } = await programmed(
      [svc({ loadBalancerIPs: ['203.0.113.10'] })],
      { forwardHealthCheckVip: true, rootHnsEndpointName: 'cbr0-host' },
      { rootEndpoint: 'cbr0-host' },
    );
    const hc = lbOn(hns, '203.0.113.10', 10256)!;
    expect(hc.PortMappings).toEqual([{ Protocol: 6, InternalPort: 10256, ExternalPort: 10256 }]);
    expect(endpointIps(hns, hc)).toEqual(['198.18.1.2']);
  });

  it('several ports and protocols: one load balancer per port and protocol, internal port per target', async () => {
    const { hns } = await programmed([
      svc({
        ports: [
          { name: 'dns', port: 53, protocol: 'UDP', targetPort: 5353 },
          { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 5353 },
          { name: 'sctp', port: 9, protocol: 'SCTP', targetPort: 9999 },
        ],
      }),
    ]);
    expect(lbOn(hns, '198.19.0.10', 53, { protocol: 17 })!.PortMappings![0]!.InternalPort).toBe(5353);
    expect(lbOn(hns, '198.19.0.10', 53, { protocol: 6 })).toBeDefined();
    expect(lbOn(hns, '198.19.0.10', 9, { protocol: 132 })!.PortMappings![0]!.InternalPort).toBe(9999);
  });

  it("terminating endpoints are used when none is ready (core's fallback)", async () => {
    const { hns } = await programmed([
      svc({
        endpoints: [
          { ip: LOCAL, ready: false, serving: true, terminating: true },
          { ip: REMOTE, node: OTHER_NODE, ready: false, serving: false, terminating: true },
        ],
      }),
    ]);
    expect(endpointIps(hns, lbOn(hns, '198.19.0.10', 80))).toEqual([LOCAL]);
  });

  it('no usable endpoints: no load balancer at all (HNS has no reject)', async () => {
    const { hns } = await programmed([svc({ endpoints: [{ ip: LOCAL, ready: false, serving: false }] })]);
    expect(hns.loadBalancers()).toEqual([]);
  });

  it('a local endpoint HNS does not have yet (CNI still wiring the pod) is left out until it appears', async () => {
    const node = await programmed([svc({ endpoints: [{ ip: '198.18.1.99' }, { ip: LOCAL }] })]);
    expect(endpointIps(node.hns, lbOn(node.hns, '198.19.0.10', 80))).toEqual([LOCAL]);
    node.hns.addLocalEndpoint(node.networkId, '198.18.1.99');
    await node.sync(nodeState([svc({ endpoints: [{ ip: '198.18.1.99' }, { ip: LOCAL }] })]), { full: true });
    expect(endpointIps(node.hns, lbOn(node.hns, '198.19.0.10', 80))).toEqual([LOCAL, '198.18.1.99']);
  });

  it('dual-stack: one load balancer per family, the IPv6 one flagged IPv6 with IPv6 endpoints', async () => {
    const { hns } = await programmed([
      svc({
        clusterIPs: ['198.19.0.10', '2001:db8:19::10'],
        ports: [{ port: 80, nodePort: 30080 }],
        endpoints: [...eps, { ip: '2001:db8:1::10' }, { ip: '2001:db8:2::10', node: OTHER_NODE }],
      }),
    ]);
    const v6 = lbOn(hns, '2001:db8:19::10', 80)!;
    expect(v6.Flags).toBe(2);
    expect(endpointIps(hns, v6)).toEqual(['2001:db8:1::10', '2001:db8:2::10']);
    expect(lbOn(hns, 'node', 30080, { ipv6: true })!.Flags).toBe(2);
    expect(lbOn(hns, 'node', 30080, { ipv6: false })!.Flags ?? 0).toBe(0);
    expect(hns.loadBalancers()).toHaveLength(4);
    expect(
      remoteEndpoints(hns)
        .map((e) => e.MacAddress)
        .sort(),
    ).toEqual(['02-11-10-00-00-00', '02-11-c6-12-02-0a']);
  });

  it('only the configured families are programmed', async () => {
    const { hns } = await programmed(
      [svc({ clusterIPs: ['198.19.0.10', '2001:db8:19::10'], endpoints: [{ ip: LOCAL }, { ip: '2001:db8:1::10' }] })],
      { families: ['IPv6'] },
    );
    expect(hns.loadBalancers().map((lb) => lb.FrontendVIPs)).toEqual([['2001:db8:19::10']]);
  });

  it('two Services claiming one frontend: the first (by key) wins, the sync does not fail', async () => {
    const { hns } = await programmed([
      svc({ name: 'a', externalIPs: ['203.0.113.5'] }),
      svc({ name: 'b', clusterIPs: ['198.19.0.11'], externalIPs: ['203.0.113.5'], endpoints: [{ ip: LOCAL2 }] }),
    ]);
    expect(endpointIps(hns, lbOn(hns, '203.0.113.5', 80))).toEqual([LOCAL, REMOTE]);
    expect(hns.loadBalancers()).toHaveLength(3);
  });
});
