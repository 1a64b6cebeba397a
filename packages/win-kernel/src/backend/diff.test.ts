/**
 * What each sync writes to (the fake) HNS: only the difference. One endpoint change rewrites only
 * the load balancers that list it; unchanged Services are never touched; drift is repaired by full
 * syncs; a failed sync is undone and leaves HNS as it was.
 */
import { describe, expect, it } from 'vitest';
import { nodeState, OTHER_NODE, type ServiceFixture } from '@kpng/nft/testing';
import { HResult } from '../hcn/errors.js';
import { endpointIps, fakeNode, lbOn, NETWORK, remoteEndpoints, SILENT } from '../testing/harness.js';
import { WinKernelBackend } from './win-kernel-backend.js';
import { Registry } from 'prom-client';

const web = (endpoints: NonNullable<ServiceFixture['endpoints']>): ServiceFixture => ({
  name: 'web',
  clusterIPs: ['198.19.0.10'],
  endpoints,
});
const api: ServiceFixture = {
  name: 'api',
  clusterIPs: ['198.19.0.20'],
  ports: [{ port: 443, nodePort: 30443 }],
  loadBalancerIPs: ['203.0.113.20'],
  endpoints: [{ ip: '198.18.1.20' }, { ip: '198.18.2.20', node: OTHER_NODE }],
};
const pods = ['198.18.1.10', '198.18.1.11', '198.18.1.20'];

async function twoServices() {
  const node = fakeNode({ localPods: pods });
  await node.sync(nodeState([web([{ ip: '198.18.1.10' }, { ip: '198.18.2.10', node: OTHER_NODE }]), api]));
  node.hns.clearCalls();
  return node;
}

describe('fake HNS: syncs write only the difference', () => {
  it("one endpoint added to one Service: that Service's load balancer is replaced, nothing else is touched", async () => {
    const node = await twoServices();
    const before = lbOn(node.hns, '198.19.0.10', 80)!;
    const apiBefore = node.hns
      .loadBalancers()
      .filter((lb) => lb.ID !== before.ID)
      .map((lb) => lb.ID)
      .sort();
    await node.sync(
      nodeState([web([{ ip: '198.18.1.10' }, { ip: '198.18.1.11' }, { ip: '198.18.2.10', node: OTHER_NODE }]), api]),
      { updated: ['web'] },
    );
    expect(node.hns.calls.map((c) => `${c.op} ${c.id}`)).toEqual([
      `deleteLoadBalancer ${before.ID}`,
      expect.stringMatching(/^createLoadBalancer /),
    ]);
    expect(endpointIps(node.hns, lbOn(node.hns, '198.19.0.10', 80))).toEqual([
      '198.18.1.10',
      '198.18.1.11',
      '198.18.2.10',
    ]);
    expect(
      node.hns
        .loadBalancers()
        .filter((lb) => lb.ID !== lbOn(node.hns, '198.19.0.10', 80)!.ID)
        .map((lb) => lb.ID)
        .sort(),
    ).toEqual(apiBefore);
  });

  it('a new remote endpoint is created before the load balancer that lists it; a gone one is deleted after', async () => {
    const node = await twoServices();
    await node.sync(nodeState([web([{ ip: '198.18.1.10' }, { ip: '198.18.2.11', node: OTHER_NODE }]), api]), {
      updated: ['web'],
    });
    expect(node.hns.calls.map((c) => c.op)).toEqual([
      'deleteLoadBalancer',
      'deleteEndpoint',
      'createEndpoint',
      'createLoadBalancer',
    ]);
    expect(
      remoteEndpoints(node.hns)
        .map((e) => e.IpConfigurations?.[0]?.IpAddress)
        .sort(),
    ).toEqual(['198.18.2.11', '198.18.2.20']);
  });

  it('the same change in a full sync writes exactly the same operations', async () => {
    const node = await twoServices();
    await node.sync(
      nodeState([web([{ ip: '198.18.1.10' }, { ip: '198.18.1.11' }, { ip: '198.18.2.10', node: OTHER_NODE }]), api]),
      { full: true },
    );
    expect(node.hns.calls.map((c) => c.op)).toEqual(['deleteLoadBalancer', 'createLoadBalancer']);
  });

  it('a full resync with nothing changed writes nothing', async () => {
    const node = await twoServices();
    await node.sync(nodeState([web([{ ip: '198.18.1.10' }, { ip: '198.18.2.10', node: OTHER_NODE }]), api]), {
      full: true,
    });
    expect(node.hns.calls).toEqual([]);
  });

  it('a deleted Service: its load balancers go, then the remote endpoints only it used', async () => {
    const node = await twoServices();
    await node.sync(nodeState([web([{ ip: '198.18.1.10' }, { ip: '198.18.2.10', node: OTHER_NODE }])]), {
      updated: ['api'],
    });
    expect(node.hns.calls.map((c) => c.op)).toEqual([
      'deleteLoadBalancer',
      'deleteLoadBalancer',
      'deleteLoadBalancer',
      'deleteEndpoint',
    ]);
    expect(node.hns.loadBalancers()).toHaveLength(1);
  });

  it('a partial sync never looks at Services it was not told about, even if HNS drifted; the next full sync repairs it', async () => {
    const node = await twoServices();
    const lost = lbOn(node.hns, '203.0.113.20', 443)!;
    await node.hns.deleteLoadBalancer(lost.ID!); // someone removed it behind our back
    node.hns.clearCalls();
    await node.sync(nodeState([web([{ ip: '198.18.1.10' }, { ip: '198.18.2.10', node: OTHER_NODE }]), api]), {
      updated: ['web'],
    });
    expect(node.hns.calls).toEqual([]);
    await node.sync(nodeState([web([{ ip: '198.18.1.10' }, { ip: '198.18.2.10', node: OTHER_NODE }]), api]), {
      full: true,
    });
    expect(node.hns.calls.map((c) => c.op)).toEqual(['createLoadBalancer']);
    expect(endpointIps(node.hns, lbOn(node.hns, '203.0.113.20', 443))).toEqual(['198.18.1.20', '198.18.2.20']);
  });

  it("load balancers HNS holds that no Service wants (a previous run's) are removed by the first sync", async () => {
    const node = await twoServices();
    const fresh = new WinKernelBackend({ hns: node.hns, networkName: NETWORK, log: SILENT });
    await fresh.sync({
      state: nodeState([api]),
      changes: { triggerTimes: new Map(), nodeChanged: false },
      full: true,
      revision: 1,
    });
    expect(node.hns.calls.map((c) => c.op)).toEqual(['deleteLoadBalancer', 'deleteEndpoint']);
    expect(node.hns.loadBalancers()).toHaveLength(3);
  });

  it("a failure midway is undone: HNS ends as it was, the error keeps HNS's HRESULT, metrics count it", async () => {
    const registry = new Registry();
    const node = fakeNode({ localPods: pods }, { metrics: registry });
    await node.sync(nodeState([web([{ ip: '198.18.1.10' }, { ip: '198.18.2.10', node: OTHER_NODE }]), api]));
    const snapshot = JSON.stringify({
      lbs: node.hns
        .loadBalancers()
        .map((lb) => ({ ...lb, ID: undefined }))
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    });
    const before = endpointIps(node.hns, lbOn(node.hns, '198.19.0.10', 80));
    node.hns.failNext('createLoadBalancer', HResult.HCN_E_INVALID_POLICY, 1);
    const changed = nodeState([
      web([{ ip: '198.18.1.11' }, { ip: '198.18.2.11', node: OTHER_NODE }]),
      { ...api, endpoints: [{ ip: '198.18.1.20' }] },
    ]);
    await expect(node.sync(changed, { updated: ['web', 'api'] })).rejects.toThrow(
      /HcnCreateLoadBalancer failed: 0x803B000D \(HCN_E_INVALID_POLICY\)/,
    );
    const after = JSON.stringify({
      lbs: node.hns
        .loadBalancers()
        .map((lb) => ({ ...lb, ID: undefined }))
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    });
    expect(endpointIps(node.hns, lbOn(node.hns, '198.19.0.10', 80))).toEqual(before);
    expect(after.replace(/[0-9A-F]{8}-0000-4000-8000-[0-9A-F]{12}/g, 'ID')).toBe(
      snapshot.replace(/[0-9A-F]{8}-0000-4000-8000-[0-9A-F]{12}/g, 'ID'),
    );
    expect(
      remoteEndpoints(node.hns)
        .map((e) => e.IpConfigurations?.[0]?.IpAddress)
        .sort(),
    ).toEqual(['198.18.2.10', '198.18.2.20']);
    const metrics = await registry.getMetricsAsJSON();
    const rollbacks = metrics.find((m) => m.name === 'kpng_win_kernel_rollbacks_total')!;
    expect(rollbacks.values).toEqual([expect.objectContaining({ labels: { result: 'undone' }, value: 1 })]);
    const calls = metrics.find((m) => m.name === 'kpng_win_kernel_hns_operations_total')!;
    expect(calls.values).toContainEqual(
      expect.objectContaining({ labels: { operation: 'createLoadBalancer', result: 'error' }, value: 1 }),
    );
    // The retry (a full sync, as core's SyncLoop does after a failure) lands the change.
    await node.sync(changed, { full: true });
    expect(endpointIps(node.hns, lbOn(node.hns, '198.19.0.10', 80))).toEqual(['198.18.1.11', '198.18.2.11']);
    expect(endpointIps(node.hns, lbOn(node.hns, '203.0.113.20', 443))).toEqual(['198.18.1.20']);
  });

  it('a missing network fails each sync with a clear error, not the start; programming begins once the CNI creates it', async () => {
    const node = fakeNode({ localPods: pods }, { networkName: 'later' });
    await node.backend.setup();
    await expect(node.sync(nodeState([api]))).rejects.toThrow(/HNS network "later" not found: check --network-name/);
    node.hns.addNetwork({ name: 'later', type: 'L2Bridge' });
    await node.sync(nodeState([{ ...api, endpoints: [{ ip: '198.18.2.20', node: OTHER_NODE }] }]));
    expect(node.hns.loadBalancers()).toHaveLength(3);
  });

  it("--cleanup removes every load balancer and the remote endpoints, never the pods' endpoints", async () => {
    const node = await twoServices();
    await node.backend.cleanup();
    expect(node.hns.loadBalancers()).toEqual([]);
    expect(remoteEndpoints(node.hns)).toEqual([]);
    expect(
      node.hns
        .endpoints()
        .map((e) => e.IpConfigurations?.[0]?.IpAddress)
        .sort(),
    ).toEqual(pods);
  });
});
