// What the fault suites (packages/kube-proxy/test/fault-*, packages/ipvs/test/guest) and the compat
// e2e share: the cluster their fake API server serves, one case under steady traffic and its figure
// line, a PATH shim that makes a program's kernel writes fail or hang, the hostile objects, and upstream
// ipvs mode's state (its source's ipsets, chains, kube-ipvs0 and virtual servers). `@kpng/lab/fault`: a
// package importing another package's test files would make a dependency cycle in the build graph.
export { CLUSTER_IP, ECHO_PORT, endpointSlice, node, NODE_NAME, service, SERVICE_PORT } from './objects.js';
export { printFigure, underTraffic, type FaultFigure } from './run-case.js';
export { keepExchanging, type Exchanged } from './keep-exchanging.js';
export { createKernelShim, type KernelShim, type ShimMode } from './kernel-shim.js';
export {
  burstService,
  hostileService,
  hostileSlice,
  LONGEST_LABEL,
  LONGEST_PORT_NAME,
  LONGEST_SUBDOMAIN,
  manyEndpoints,
  manyPorts,
  type ServicePort,
} from './hostile-objects.js';
export { IPVS_MODE_IPSETS, ipsetRestore, iptablesRestore, ipvsCommands } from './upstream-ipvs.js';
export { runHostileCases, type HostileCounts, type HostileProbes, type InvalidKind } from './hostile-cases.js';
