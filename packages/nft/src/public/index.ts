/**
 * @kpng/nft: the nftables backend. Every export is listed by name; this file is the contract.
 * The generic nftables library is its own package, `@kpng/nftables`; the tracer and fixtures are
 * `@kpng/nft/testing` (the in-memory nft is `@kpng/nftables/testing`).
 */

// The backend core's sync loop drives
export { NftBackend } from '../backend/nft-backend.js';
export type { NftBackendOptions } from '../backend/options.js';
/** The backend as every program loads it (`kpng-nft`, `kpng --backend nft`): its flags and factory. */
export { backend, parseNftFlags } from '../cli/backend-module.js';

// The kpng-nft program
export { main } from '../cli/main.js';

// Configuration (kube-proxy's nodePortAddresses, detectLocalMode, masqueradeAll, masqueradeBit)
export { DEFAULT_CONFIG, resolveConfig } from '../render/config.js';
export type { LocalDetectorConfig, NftConfig, NftConfigInput } from '../render/config.js';

// Rendering: the desired tables as data
export { render, renderFamily } from '../render/ruleset.js';
export type { ChainSpec, ElementSpec, FamilyRuleset, SetSpec } from '../render/types.js';

// `explain NAMESPACE/NAME`: one Service's objects in a table (from `nft -j` and `nft list` output), and reading them
export { selectServiceObjects } from '../explain/select.js';
export { explainNft } from '../explain/explain.js';

// Metrics and conntrack seams
export { createNftMetrics, NO_METRICS, type NftMetrics } from '../backend/metrics.js';
export {
  ConntrackTool,
  type ConntrackCleaner,
  type ConntrackCleanupRequest,
  type ConntrackToolOptions,
} from '@kpng/core';
