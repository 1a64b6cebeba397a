// Shared pieces of the iptables kernel e2e files: the configuration the scenarios assume, the two
// flavours every suite runs on, and sync requests.
import { serviceKey, type NodeLocalState, type ServiceKey, type SyncRequest } from '@kpng/core';
import type { IptablesConfigInput } from '../src/render/config.js';

/** ClusterCIDR covering both nodes' pods only. */
export const E2E_CONFIG: IptablesConfigInput = {
  localDetector: { mode: 'ClusterCIDR', clusterCIDRs: ['198.18.0.0/22', '2001:db8::/46'] },
};

export const FLAVOURS = ['legacy', 'nft'] as const;

export function fullSync(state: NodeLocalState, revision = 1): SyncRequest {
  return { state, changes: { triggerTimes: new Map(), nodeChanged: false }, full: true, revision };
}

export function partialSync(state: NodeLocalState, changed: readonly string[], revision: number): SyncRequest {
  const updatedServices = new Set(changed.map((name) => serviceKey('default', name))) as ReadonlySet<ServiceKey>;
  return { state, changes: { updatedServices, triggerTimes: new Map(), nodeChanged: false }, full: false, revision };
}
