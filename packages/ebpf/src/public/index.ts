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
  MAX_MAP_ENTRIES,
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

// The backend core's sync loop drives, and the module every kpng program loads
export {
  EbpfBackend,
  DEFAULT_MAP_BOUNDS,
  MapFullError,
  grownSize,
  type EbpfBackendOptions,
} from '../backend/ebpf-backend.js';
export type { LbKernel, MapIO, StaleUdpSweep } from '../backend/kernel.js';
export { createEbpfMetrics, type EbpfMetrics } from '../backend/metrics.js';
export { backend, parseEbpfFlags, type EbpfFlagConfig } from '../cli/backend-module.js';
export { main } from '../cli/main.js';
export { explainEbpf, type EbpfExplainConfig } from '../explain/explain.js';
export { renderService, type RenderedLb, type RenderProblem, type Scope } from '../render/render.js';
