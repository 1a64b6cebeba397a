/**
 * @kpng/ipvs: the IPVS backend. Every export is listed by name; this file is the contract. Fakes
 * and the seam's conformance cases are `@kpng/ipvs/testing`.
 */

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
