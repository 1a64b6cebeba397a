/**
 * @kpng/ipvs: the IPVS backend. Every export is listed by name; this file is the contract. Fakes
 * and the seam's conformance cases are `@kpng/ipvs/testing`.
 */

// The backend core's sync loop drives, and the module every kpng program loads
export { IpvsBackend } from '../backend/ipvs-backend.js';
export type { IpvsBackendOptions } from '../backend/options.js';
export { backend, parseIpvsFlags } from '../cli/backend-module.js';
export { main } from '../cli/main.js';
// `explain NAMESPACE/NAME`: the Service's virtual servers, real servers and filter elements, read back (kpng and compat)
export { explainIpvs } from '../explain/explain.js';
export { DEFAULT_IPVS_CONFIG, DUMMY_LINK, NFT_TABLE, type IpvsConfig } from '../render/options.js';

// Rendering: desired virtual servers and the diff, as data
export { renderDesired, type DesiredState, type DesiredVirtualServer, type Exposure } from '../render/desired.js';
export { diffTables, type IpvsOperation } from '../render/diff.js';

// The kernel seam: IPVS over generic netlink
export { NetlinkIpvs, type NetlinkIpvsOptions } from '../ipvs/netlink-ipvs.js';
export type { IpvsCall, IpvsKernel } from '../ipvs/seam.js';
export {
  realServerKey,
  virtualServerKey,
  type IpvsFamily,
  type IpvsProtocol,
  type ObservedRealServer,
  type RealServer,
  type VirtualServer,
  type VirtualServerKey,
} from '../ipvs/types.js';
export { NetlinkError } from '../netlink/errno.js';
