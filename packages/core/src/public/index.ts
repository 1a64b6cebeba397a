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
export { IP_FAMILIES, serviceKey, servicePortKey, sliceKey } from '../model/types.js';
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
