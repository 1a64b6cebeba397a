/**
 * @kpng/core: the backend contract. What a backend receives (the node-local state and its keys),
 * the `Backend` it implements, and the small utilities every backend shares. Running a proxy is
 * `@kpng/core/runtime`; the stream's client library is `@kpng/core/stream`; fakes and fixtures are
 * `@kpng/core/testing`. Every export is listed by name: this file is the package's contract.
 */

// Keys and the model's vocabulary
export type {
  IPFamily,
  Protocol,
  ServiceType,
  TrafficPolicy,
  ServiceKey,
  ServicePortKey,
  SliceKey,
  NodeName,
  ServicePortSpec,
  SessionAffinity,
  ServiceModel,
  EndpointSlicePort,
  EndpointModel,
  EndpointSliceModel,
  NodeModel,
  ObjectKind,
  ModelEvent,
} from '../model/types.js';
export { IP_FAMILIES, nodeName, serviceKey, servicePortKey, sliceKey } from '../model/types.js';

// The node-local state: what backends consume
export type {
  LocalEndpoint,
  FamilyEndpoints,
  LocalServicePort,
  FamilyAddresses,
  LocalService,
  LocalNode,
  NodeLocalState,
  StateChanges,
} from '../nodeview/types.js';
export { findService } from '../nodeview/find-service.js';
export {
  nodePortAddressesFor,
  nodePortAddressTest,
  nodePortSelection,
  resolveNodePortAddresses,
  type FamilyNodePortAddresses,
  type FamilyNodePortSelection,
  type NodePortAddresses,
} from '../nodeview/node-port-addresses.js';

// The node-local policy view: what a NetworkPolicy enforcer consumes
export type {
  AllowPeers,
  AllowRule,
  DirectionPolicy,
  PeerEndpoint,
  PeerGroup,
  PeerGroupKey,
  PodKey,
  PodPolicy,
  PolicyKey,
  PolicyState,
  PortRange,
} from '../policy/index.js';
export { allowsConnection, podKey, policyKey, type Connection } from '../policy/index.js';

// What a backend implements
export type { Backend, DriftKinds, SyncOutcome, SyncRequest } from '../sync/backend.js';
export {
  defineBackend,
  type BackendModule,
  type BackendFlag,
  type BackendContext,
  type FlagValues,
} from '../runtime/backend-module.js';
export {
  parseServiceRef,
  type ExplainContext,
  type ExplainLine,
  type ExplainReport,
  type ExplainSection,
  type ServiceRef,
} from '../runtime/explain.js';
export { UsageError } from '../runtime/program-options.js';
export {
  csvFlag,
  LOCAL_DETECTOR_FLAGS,
  parseLocalDetector,
  type LocalDetectorConfig,
} from '../runtime/local-detector-flags.js';
export { WRITE_TIMEOUT_FLAG, parseWriteTimeout } from '../runtime/write-timeout-flag.js';

// Utilities backends share
export type { Clock } from '../util/clock.js';
export { systemClock } from '../util/clock.js';
export {
  createLogger,
  configureLogging,
  resetLogging,
  log,
  type Logger,
  type LogFields,
  type LogFormat,
  type LogSettings,
} from '../util/log.js';
export { parseVModule, type VModuleRule } from '../util/vmodule.js';
export { KpngError, ErrorCodes, toError, type ErrorCode } from '../util/errors.js';
export {
  parseIP,
  formatIP,
  canonicalIP,
  parseCIDR,
  canonicalCIDR,
  cidrContains,
  ipFamilyOf,
} from '../watch/convert/index.js';

// kube-proxy's nftables sync failure counter, shared by the backends that write nftables
export { createNftablesSyncFailures } from '../metrics/nftables-sync.js';
export { createIptablesRestoreFailures } from '../metrics/iptables-restore.js';

// Defence in depth at render time: what may reach a kernel tool's text
export {
  isAffinityTimeout,
  isCanonicalCIDR,
  isCanonicalIP,
  isInterfaceName,
  isMarkBit,
  isObjectName,
  isOptionalPort,
  isPort,
  isProtocol,
} from '../guard/render-values.js';
export {
  RenderGuard,
  type RefusalObserver,
  type RefusalReason,
  type RefusedKind,
  type RenderRefusal,
} from '../guard/render-guard.js';
export { renderRefusals, RENDER_REFUSED_METRIC, type RenderRefusalsOptions } from '../guard/render-refusals.js';

// Stale UDP conntrack cleanup, shared by the Linux backends
export {
  cleanStaleFlows,
  ConntrackTool,
  createConntrackMetrics,
  type ConntrackCleaner,
  type ConntrackCleanupRequest,
  type ConntrackObserver,
  type ConntrackToolOptions,
  type StaleFlowCleanup,
} from '../conntrack/index.js';
