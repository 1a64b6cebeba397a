/**
 * @kpng/core public API. Backends and tools import only from here (and `@kpng/core/testing`).
 * Every export is listed by name: this file is the package's contract.
 */

// The global model
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
export type { ModelReader } from '../model/reader.js';
export type { ChangeSet } from '../model/change-set.js';
export { GlobalModel, type GlobalSnapshot, type ModelObserver } from '../model/global-model.js';

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
export { NodeViewer, computeNodeLocalState } from '../nodeview/node-viewer.js';
export { findService } from '../nodeview/find-service.js';

// Sources
export type { Source, ModelSink } from '../watch/source.js';

// Backends and syncing
export type { Backend, SyncRequest } from '../sync/backend.js';

// The pipeline
export { Core, type CoreOptions, type StateConsumer } from '../runtime/core.js';

// Utilities backends share
export type { Clock } from '../util/clock.js';
export { systemClock } from '../util/clock.js';
export { createLogger, configureLogging, log, type Logger, type LogFields } from '../util/log.js';
export { KpngError, ErrorCodes, toError, type ErrorCode } from '../util/errors.js';
export { parseDuration, formatDuration } from '../util/duration.js';
export { parseListenAddress, formatListenAddress, isLoopbackHost, type ListenAddress } from '../util/address.js';

// Sources
export { KubeSource, loadKubeConfig, type KubeSourceOptions, type KubeConfigLocation } from '../watch/kube/index.js';
export { FileSource, type FileSourceOptions } from '../watch/file/index.js';
export { ApiSource, type ApiSourceOptions } from '../watch/api/index.js';
export { convertService, convertEndpointSlice, convertNode, type Converted } from '../watch/convert/index.js';
export { parseIP, formatIP, canonicalIP, parseCIDR, canonicalCIDR, cidrContains, ipFamilyOf } from '../watch/convert/index.js';

// Running a kpng process
export { runKpng, type KpngConfig, type RunningKpng } from '../runtime/run-kpng.js';
export { attachStreamServers, type StreamListenOptions } from '../runtime/attach-streams.js';
export { SyncLoop, type SyncLoopOptions } from '../sync/sync-loop.js';
export { WorkQueue } from '../sync/workqueue.js';
export { RateLimitingQueue } from '../sync/rate-limiting-queue.js';
export { defaultControllerRateLimiter } from '../sync/rate-limiter.js';

// The full-state stream and its client library
export {
  StateHub,
  serveLocalState,
  serveGlobalState,
  watchLocalState,
  watchGlobalState,
  watchHub,
  run,
  measureStream,
  DEFAULT_LOCAL_ADDRESS,
  type ResumeToken,
  type Delivery,
  type StateSource,
  type StreamServer,
  type StateHandler,
  type WatchInfo,
  type WatchOptions,
  type RunOptions,
} from '../stream/index.js';

// Stale UDP conntrack cleanup (the Linux backends)
export {
  ConntrackTool,
  createConntrackMetrics,
  type CommandRunner,
  type ConntrackCleaner,
  type ConntrackCleanupRequest,
  type ConntrackObserver,
  type ConntrackToolOptions,
} from '../conntrack/index.js';

// Metrics and health (kube-proxy compatible)
export { createCoreMetrics, CoreMetrics, EXP_BUCKETS, NPL_BUCKETS, startMetricsServer } from '../metrics/index.js';
export { registerRestClientMetrics, type RestClientMetrics } from '../metrics/rest-client.js';
export { ProxyHealth, startHealthServer, ServiceHealthServers } from '../health/index.js';
