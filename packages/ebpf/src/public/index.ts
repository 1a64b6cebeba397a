/**
 * @kpng/ebpf: Service load balancing at the socket in cgroup v2 BPF programs (bpf/sock_lb.c).
 * Every export is listed by name; this file is the package's contract.
 */

// The kernel side: the object loaded through libbpf, attached to one cgroup v2 directory
export {
  SockLb,
  SOCK_LB_OBJECT,
  SOCK_LB_PROGRAMS,
  DEFAULT_MAP_LIMITS,
  type MapLimits,
  type SockLbOptions,
} from '../libbpf/sock-lb.js';
export { BpfMap } from '../libbpf/bpf-map.js';
export { BpfError } from '../libbpf/errors.js';
export { cgroupV2Mounts, readCgroupV2Mounts, resolveCgroup } from '../cgroup/cgroup.js';

// The maps' keys and values, as the programs read them
export {
  MAP_NAMES,
  LB_REJECT,
  LB_UNREACHABLE,
  serviceKey,
  lbValue,
  decodeLb,
  endpointKey,
  endpointValue,
  type MapName,
  type LbValue,
} from '../maps/layout.js';
