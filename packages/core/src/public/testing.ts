/** @kpng/core/testing: fakes and fixture builders for tests of core and of backends. */
export { FakeClock } from '../util/fake-clock.js';
export {
  THIS_NODE,
  OTHER_NODE,
  nodeName,
  aPort,
  aService,
  anEndpoint,
  readyOn,
  terminatingOn,
  unreadyOn,
  aSlice,
  slicePort,
  aNode,
  InMemoryModel,
  scaleModel,
  type SliceSpec,
  type NodeSpec,
  type ScaleShape,
} from '../nodeview/testing-fixtures.js';
export {
  fixtureModel,
  fullSyncRequest,
  nodeState,
  partialSyncRequest,
  NODE_IPV4,
  NODE_IPV6,
  type EndpointFixture,
  type NodeFixture,
  type PortFixture,
  type ServiceFixture,
} from '../nodeview/state-fixtures.js';
export {
  affinityScenario,
  allFeatures,
  BRIEF_AFFINITY_SECONDS,
  CLIENT_RANGES,
  clusterIPs,
  externalIPs,
  lifecycleScenario,
  on,
  OTHER_RANGES,
  POD,
  REMOTE_NODE,
  type PodName,
} from '../nodeview/state-scenarios.js';
export { syntheticLocalState, withOneServiceChanged, type SyntheticShape } from '../stream/testing-fixtures.js';
export { RecordingLogger, SILENT_LOGGER, type LogRecord } from '../sync/recording-logger.js';
export { parseLogLine, type ParsedLogLine } from '../util/log-line.js';

// Raw HTTP exchanges, for tests of the servers' doors against hostile input
export { HOSTILE_RAW_REQUESTS, HOSTILE_RAW_STATUSES, rawExchange, rawGet, type RawReply } from '../metrics/raw-http.js';
