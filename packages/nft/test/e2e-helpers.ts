// Shared pieces of the kernel e2e files: the nft configuration the scenarios assume and sync
// requests. The lab topology, addresses and clients come from @kpng/lab's proxy lab.
import { serviceKey, type IPFamily, type NodeLocalState, type ServiceKey, type SyncRequest } from '@kpng/core';
import type { NftConfigInput } from '../src/render/config.js';
import { POD, type PodName } from '../src/testing/scenarios.js';

export {
  clientAddress,
  clientNamespace,
  createProxyLab as createLab,
  destination,
  ECHO_PORT,
  EXTERNAL_CLIENT,
  HOLD_PORT,
  LAB_PODS,
  type Client,
} from '@kpng/lab';

/** The configuration every kernel e2e uses: ClusterCIDR covering both nodes' pods only. */
export const E2E_CONFIG: NftConfigInput = {
  localDetector: { mode: 'ClusterCIDR', clusterCIDRs: ['198.18.0.0/22', '2001:db8::/46'] },
  serviceCIDRs: ['198.19.0.0/16', '2001:db8:5e::/64'],
};

export function podAddress(family: IPFamily, pod: PodName): string {
  return POD[pod][family === 'IPv4' ? 'v4' : 'v6'];
}

export function fullSync(state: NodeLocalState, revision = 1): SyncRequest {
  return { state, changes: { triggerTimes: new Map(), nodeChanged: false }, full: true, revision };
}

export function partialSync(state: NodeLocalState, changed: readonly string[], revision: number): SyncRequest {
  const updatedServices = new Set(changed.map((name) => serviceKey('default', name))) as ReadonlySet<ServiceKey>;
  return { state, changes: { updatedServices, triggerTimes: new Map(), nodeChanged: false }, full: false, revision };
}
