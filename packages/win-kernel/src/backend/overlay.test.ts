/**
 * Overlay (VXLAN) networks against the fake HNS: remote endpoints carry the provider address of the
 * node that hosts them (from the network's remote subnet routes), every ClusterIP is a remote
 * endpoint of this node, the source VIP endpoint exists, load balancers carry the source VIP.
 */
import { describe, expect, it } from 'vitest';
import { NODE_IPV4, nodeState, OTHER_NODE, type ServiceFixture } from '@kpng/nft/testing';
import { endpointIps, fakeNode, HOST_MAC, lbOn, remoteEndpoints, SOURCE_VIP } from '../testing/harness.js';

const OTHER_NODE_IP = '198.18.255.2';
const overlay = () =>
  fakeNode({
    type: 'Overlay',
    localPods: ['198.18.1.10'],
    remoteSubnets: [{ DestinationPrefix: '198.18.2.0/24', ProviderAddress: OTHER_NODE_IP, IsolationId: 4096 }],
  });
const svc = (over: Partial<ServiceFixture> = {}): ServiceFixture => ({
  name: 'web',
  clusterIPs: ['198.19.0.10'],
  endpoints: [{ ip: '198.18.1.10' }, { ip: '198.18.2.10', node: OTHER_NODE }],
  ...over,
});

describe('fake HNS: overlay networks', () => {
  it('remote pods get the provider address of their node; load balancers carry the configured source VIP', async () => {
    const node = overlay();
    await node.sync(nodeState([svc()]));
    const lb = lbOn(node.hns, '198.19.0.10', 80)!;
    expect(lb.SourceVIP).toBe(SOURCE_VIP);
    expect(endpointIps(node.hns, lb)).toEqual(['198.18.1.10', '198.18.2.10']);
    const pod = remoteEndpoints(node.hns).find((e) => e.IpConfigurations?.[0]?.IpAddress === '198.18.2.10')!;
    expect(pod.Policies).toEqual([{ Type: 'ProviderAddress', Settings: { ProviderAddress: OTHER_NODE_IP } }]);
    expect(pod.MacAddress).toBe('02-11-c6-12-02-0a');
  });

  it('the ClusterIP is a remote endpoint on this node (host MAC, node IP as provider); the source VIP endpoint is created once', async () => {
    const node = overlay();
    await node.sync(nodeState([svc()]));
    const vip = remoteEndpoints(node.hns).find((e) => e.IpConfigurations?.[0]?.IpAddress === '198.19.0.10')!;
    expect(vip).toMatchObject({
      MacAddress: HOST_MAC,
      Flags: 1,
      Policies: [{ Type: 'ProviderAddress', Settings: { ProviderAddress: NODE_IPV4 } }],
    });
    const source = node.hns.endpoints().filter((e) => e.IpConfigurations?.[0]?.IpAddress === SOURCE_VIP);
    expect(source).toEqual([
      expect.objectContaining({
        MacAddress: HOST_MAC,
        Policies: [{ Type: 'ProviderAddress', Settings: { ProviderAddress: NODE_IPV4 } }],
      }),
    ]);
    expect(source[0]!.Flags ?? 0).toBe(0); // a local endpoint, not a remote one
    node.hns.clearCalls();
    await node.sync(nodeState([svc()]), { full: true });
    expect(node.hns.calls).toEqual([]);
  });

  it('an endpoint outside the cluster (no remote subnet holds it) makes the node IP the source VIP and the provider address', async () => {
    const node = overlay();
    await node.sync(nodeState([svc({ endpoints: [{ ip: '192.0.2.50', node: OTHER_NODE }] })]));
    expect(lbOn(node.hns, '198.19.0.10', 80)!.SourceVIP).toBe(NODE_IPV4);
    const ext = remoteEndpoints(node.hns).find((e) => e.IpConfigurations?.[0]?.IpAddress === '192.0.2.50')!;
    expect(ext.Policies).toEqual([{ Type: 'ProviderAddress', Settings: { ProviderAddress: NODE_IPV4 } }]);
  });

  it("an endpoint that is another node's own IP (host-network pod) makes the node IP the source VIP", async () => {
    const node = overlay();
    await node.sync(nodeState([svc({ endpoints: [{ ip: OTHER_NODE_IP, node: OTHER_NODE }] })]));
    expect(lbOn(node.hns, '198.19.0.10', 80)!.SourceVIP).toBe(NODE_IPV4);
  });

  it('overlay networks are IPv4 only: a dual-stack Service gets no IPv6 load balancer', async () => {
    const node = overlay();
    await node.sync(
      nodeState([
        svc({
          clusterIPs: ['198.19.0.10', '2001:db8:19::10'],
          endpoints: [{ ip: '198.18.1.10' }, { ip: '2001:db8:1::10' }],
        }),
      ]),
    );
    expect(node.hns.loadBalancers().map((lb) => lb.FrontendVIPs)).toEqual([['198.19.0.10']]);
  });

  it('a Service that goes away takes its ClusterIP endpoint and its remote pods with it', async () => {
    const node = overlay();
    await node.sync(
      nodeState([
        svc(),
        svc({ name: 'api', clusterIPs: ['198.19.0.20'], endpoints: [{ ip: '198.18.2.20', node: OTHER_NODE }] }),
      ]),
    );
    expect(remoteEndpoints(node.hns)).toHaveLength(4);
    await node.sync(nodeState([svc()]), { updated: ['api'] });
    expect(
      remoteEndpoints(node.hns)
        .map((e) => e.IpConfigurations?.[0]?.IpAddress)
        .sort(),
    ).toEqual(['198.18.2.10', '198.19.0.10']);
    expect(node.hns.loadBalancers()).toHaveLength(1);
  });

  it('a moved pod subnet (new remote subnet route) replaces the remote endpoint and its load balancers on the next sync', async () => {
    const node = overlay();
    await node.sync(nodeState([svc()]));
    const network = await node.hns.getNetworkByName('cbr0');
    // The fake's network object is the source of truth for routes: rewrite it as the CNI would.
    (network as { Policies: unknown[] }).Policies = [
      { Type: 'RemoteSubnetRoute', Settings: { DestinationPrefix: '198.18.2.0/24', ProviderAddress: '198.18.255.3' } },
    ];
    await node.sync(nodeState([svc()]), { updated: [] });
    const pod = remoteEndpoints(node.hns).find((e) => e.IpConfigurations?.[0]?.IpAddress === '198.18.2.10')!;
    expect(pod.Policies).toEqual([{ Type: 'ProviderAddress', Settings: { ProviderAddress: '198.18.255.3' } }]);
    expect(endpointIps(node.hns, lbOn(node.hns, '198.19.0.10', 80))).toEqual(['198.18.1.10', '198.18.2.10']);
  });

  it('an overlay network without --source-vip is refused at setup', async () => {
    const node = fakeNode({ type: 'Overlay' }, { sourceVip: undefined as unknown as string });
    await expect(node.backend.setup()).rejects.toThrow(/--source-vip is required/);
  });
});
