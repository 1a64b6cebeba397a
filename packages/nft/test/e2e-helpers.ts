// Shared pieces of the kernel e2e files: the lab topology the scenarios assume, addresses per
// family, sync requests, and small clients the lab does not provide.
import { serviceKey, type IPFamily, type NodeLocalState, type ServiceKey, type SyncRequest } from '@kpng/core';
import type { NftConfigInput } from '../src/render/config.js';
import { clusterIPs, externalIPs, POD, type PodName } from '../src/testing/scenarios.js';
import { Lab, type NetworkNamespace } from './lab.js';

export const LAB_PODS = { pods: ['pod-a', 'pod-b'], remotePods: ['pod-c', 'pod-d'] } as const;
export const ECHO_PORT = 8080;
/** Every pod's echo server also holds TCP connections open on this port (`lab.hold`). */
export const HOLD_PORT = 9090;

/** The configuration every kernel e2e uses: ClusterCIDR covering both nodes' pods only. */
export const E2E_CONFIG: NftConfigInput = {
  localDetector: { mode: 'ClusterCIDR', clusterCIDRs: ['198.18.0.0/22', '2001:db8::/46'] },
  serviceCIDRs: ['198.19.0.0/16', '2001:db8:5e::/64'],
};

export const EXTERNAL_CLIENT = { IPv4: '203.0.113.2', IPv6: '2001:db8:ee::2' } as const;

/**
 * Creates the lab with echo servers on every pod. The node has a default route, as a real node
 * has: without it, traffic to a Service address that is not NATed dies in routing (net
 * unreachable) before the proxy's filter rules can reject or drop it.
 */
export async function createLab(): Promise<Lab> {
  const lab = await Lab.create({ ...LAB_PODS, nodeDefaultRoute: true });
  try {
    await Promise.all(lab.pods.map((pod) => lab.startEcho(pod.name, [ECHO_PORT], { holdPorts: [HOLD_PORT] })));
    return lab;
  } catch (error) {
    await lab.delete();
    throw error;
  }
}

export function podAddress(family: IPFamily, pod: PodName): string {
  return POD[pod][family === 'IPv4' ? 'v4' : 'v6'];
}

/** `cluster:N`, `external:N`, `node`, or `unallocated`, in one family. */
export function destination(lab: Lab, family: IPFamily, to: string): string {
  const v = family === 'IPv4' ? 0 : 1;
  const [kind, n] = to.split(':');
  if (kind === 'cluster') return clusterIPs(Number(n))[v] as string;
  if (kind === 'external') return externalIPs(Number(n))[v] as string;
  if (to === 'node') return family === 'IPv4' ? lab.node.ipv4 : lab.node.ipv6;
  throw new Error(`bad destination ${to}`);
}

export type Client = PodName | 'host' | 'external';

export function clientNamespace(lab: Lab, from: Client): NetworkNamespace {
  if (from === 'host') return lab.node.namespace;
  if (from === 'external') return lab.external.namespace;
  return lab.pod(`pod-${from}`).namespace;
}

export function clientAddress(family: IPFamily, from: Client): string | undefined {
  if (from === 'external') return EXTERNAL_CLIENT[family];
  if (from === 'host') return undefined;
  return podAddress(family, from);
}

export function fullSync(state: NodeLocalState, revision = 1): SyncRequest {
  return { state, changes: { triggerTimes: new Map(), nodeChanged: false }, full: true, revision };
}

export function partialSync(state: NodeLocalState, changed: readonly string[], revision: number): SyncRequest {
  const updatedServices = new Set(changed.map((name) => serviceKey('default', name))) as ReadonlySet<ServiceKey>;
  return { state, changes: { updatedServices, triggerTimes: new Map(), nodeChanged: false }, full: false, revision };
}
