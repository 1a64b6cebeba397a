/**
 * @kpng/iptables: the iptables backend (kube-proxy's iptables chain structure). Every export is
 * listed by name; this file is the contract. The in-memory iptables is `@kpng/iptables/testing`.
 */

// The backend core's sync loop drives
export { IptablesBackend } from '../backend/iptables-backend.js';
export type { IptablesBackendOptions } from '../backend/options.js';
/** The backend as every program loads it (`kpng-iptables`, `kpng --backend iptables`): its flags and factory. */
export { backend, parseIptablesFlags } from '../cli/backend-module.js';

// Configuration (kube-proxy's nodePortAddresses, localhostNodePorts, detectLocalMode, masqueradeAll, masqueradeBit)
export { DEFAULT_CONFIG, resolveConfig } from '../render/config.js';
export { localhostNodePorts } from '../render/skeleton.js';
export type { IptablesConfig, IptablesConfigInput, IptablesFlavour, LocalDetectorConfig } from '../render/config.js';

// Rendering and the tools
export { renderService } from '../render/service.js';
export type { RenderedService } from '../render/types.js';
export { CHAIN, endpointChain, servicePortChains, servicePortName, SERVICE_CHAIN } from '../render/names.js';
export { IptablesClient, type IptablesClientOptions } from '../iptables/client.js';
/** `--cleanup` of one family: kube-proxy's chains of both upstream modes, or only ipvs mode's own. */
export { cleanupFamily, IPVS_MODE_CHAINS, type CleanupScope } from '../backend/cleanup.js';
/** `explain NAMESPACE/NAME`: one Service's rules in an `iptables-save -c` dump, and reading them from the kernel. */
export { selectServiceRules } from '../explain/select.js';
export { explainIptables } from '../explain/explain.js';
export { RestoreError } from '../iptables/errors.js';
export { command, flavourOf } from '../iptables/commands.js';

// Metrics
export { createIptablesMetrics, NO_METRICS, type IptablesMetrics } from '../backend/metrics.js';
export { NFT_FLAVOUR_RULE_LIMIT, nftFlavourWarning } from '../backend/scale-warning.js';
