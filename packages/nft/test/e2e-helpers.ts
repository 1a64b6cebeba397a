// Shared pieces of the kernel e2e files: the nft configuration the scenarios assume and sync
// requests (core's). The lab topology, addresses and clients come from @kpng/lab's proxy lab.
import { scaledTimeout } from '@kpng/lab';
import { DEFAULT_WRITE_TIMEOUT_MS, type NftBackendOptions } from '../src/backend/options.js';
import type { NftConfigInput } from '../src/render/config.js';

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
export const E2E_CONFIG: NftConfigInput & Pick<NftBackendOptions, 'writeTimeoutMs'> = {
  localDetector: { mode: 'ClusterCIDR', clusterCIDRs: ['198.18.0.0/22', '2001:db8::/46'] },
  serviceCIDRs: ['198.19.0.0/16', '2001:db8:5e::/64'],
  // The product's write timeout, times the lab VM's scale: under emulation on a loaded host the
  // first transaction (which also loads nf_tables' modules) can outlast 60 s. No test here is
  // about the timeout itself (nft-backend.test.ts pins that with a hanging fake).
  writeTimeoutMs: scaledTimeout(DEFAULT_WRITE_TIMEOUT_MS),
};

export { fullSyncRequest as fullSync, partialSyncRequest as partialSync } from '@kpng/core/testing';
