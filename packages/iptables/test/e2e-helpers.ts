// Shared pieces of the iptables kernel e2e files: the configuration the scenarios assume, the two
// flavours every suite runs on; sync requests come from core's testing fixtures.
import type { IptablesConfigInput } from '../src/render/config.js';

/** ClusterCIDR covering both nodes' pods only. */
export const E2E_CONFIG: IptablesConfigInput = {
  localDetector: { mode: 'ClusterCIDR', clusterCIDRs: ['198.18.0.0/22', '2001:db8::/46'] },
};

export const FLAVOURS = ['legacy', 'nft'] as const;

export { fullSyncRequest as fullSync, partialSyncRequest as partialSync } from '@kpng/core/testing';
