/**
 * @kpng/netpol: a NetworkPolicy enforcer in nftables. It renders core's node-local policy view
 * (`PolicyState`) to one `inet kpng-netpol` table (shared peer-group sets, verdict maps keyed by pod IP)
 * and keeps it in step by element updates.
 */
export {
  besideBackend,
  NetpolBackend,
  policySyncLatency,
  POLICY_SYNC_LATENCY_METRIC,
  type NetpolBackendOptions,
} from '../backend/netpol-backend.js';
export {
  NetpolEnforcer,
  type EnforcerSyncResult,
  type NetpolEnforcerOptions,
  type SyncTimings,
} from '../backend/enforcer.js';
export { PolicyTable, verdictRules, type TableOperation } from '../render/table.js';
export { skeleton } from '../render/skeleton.js';
export { TABLE, groupSet, podMap, verdictChain, type Direction } from '../render/names.js';
/** The enforcer as every program loads it (`kpng-netpol`, `kpng --backend netpol`, `kpng --with-netpol`). */
export { backend, withNetpol, WITH_NETPOL_FLAG } from '../cli/backend-module.js';
