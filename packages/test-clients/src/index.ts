/**
 * @kpng/test-clients: end-to-end latency clients. The binaries (`bin/`) wrap the `main` functions;
 * the pieces are exported for embedding a client in a test (inject a Clock, a Dialer, a registry).
 */

// Clients and their entry points
export { main as podCreationMain, podCreationSpec } from './clients/pod-creation/main.js';
export { main as policyCreationMain, policyCreationSpec } from './clients/policy-creation/main.js';
export { main as serviceProgrammingMain, serviceProgrammingSpec } from './clients/service-programming/main.js';
export { PodCreationClient, type PodCreationOptions } from './clients/pod-creation/client.js';
export { PolicyCreationClient, type PolicyCreationOptions } from './clients/policy-creation/client.js';
export { PolicyTracker, type PolicyTrackerOptions } from './clients/policy-creation/policy-tracker.js';
export { creationStart, type StartSource, type StartTime } from './clients/policy-creation/start-time.js';
export {
  ServiceProgrammingClient,
  type MatchMode,
  type ServiceProgrammingOptions,
} from './clients/service-programming/client.js';
export { EndpointSet, type ReadyEndpoint } from './clients/service-programming/endpoints.js';
export { servicePaths, type ServicePath } from './clients/service-programming/paths.js';
export { runClient, type ClientEnv, type ClientSpec, type RunDeps, type SignalSource } from './clients/runner.js';
export type { ClientContext } from './clients/context.js';

// Configuration
export { FlagSet, FlagError, HelpRequested, ParsedFlags, type FlagSpec } from './config/flags.js';
export {
  ConfigError,
  DEFAULT_MAX_PROBE_RATE,
  MODES,
  type Mode,
  type ProbeSettings,
  type ServeSettings,
  type TargetSettings,
} from './config/common.js';
export {
  podCreationConfig,
  podCreationFlags,
  policyCreationConfig,
  policyCreationFlags,
  serviceProgrammingConfig,
  serviceProgrammingFlags,
  type PodCreationConfig,
  type PolicyCreationConfig,
  type ServiceProgrammingConfig,
} from './config/clients.js';

// Probing
export type { Dialer, DialError, DialRequest, DialResult } from './probe/dialer.js';
export { tcpDialer } from './probe/tcp-dialer.js';
export { connectMatcher, httpReplyMatcher, replyPrefixMatcher, type SuccessMatcher } from './probe/matcher.js';
export {
  maxAttemptsInFlight,
  probeUntil,
  type AttemptRecord,
  type AttemptResult,
  type ProbeCadence,
  type ProbeGoal,
  type ProbeLoopOptions,
  type ProbeOutcome,
} from './probe/probe-loop.js';
export { Prober, type JobOutcome, type ProbeJob } from './probe/prober.js';
export {
  TargetBook,
  type ClaimResult,
  type Observe,
  type TargetBookOptions,
  type UnreachedReason,
} from './probe/target-book.js';

// clusterloader2 run check
export { checkMain, type CheckDeps } from './check/main.js';
export {
  inspectMetrics,
  judgeRun,
  TEST_TYPES,
  type ClientPod,
  type JudgeOptions,
  type RunVerdict,
  type TestType,
} from './check/verdict.js';

// Kubernetes access
export { Reflector, type ReflectorOptions } from './kube/reflector.js';
export type { ObjectEvent, ObjectEventType, ObjectStream, StreamHandler } from './kube/stream.js';
export { ApiError, getObject, getText, MAX_BODY_BYTES, namespacedPath } from './kube/http.js';
export { CREATED_AT_ANNOTATION, TRIGGER_TIME_ANNOTATION, parseTime, podIP, type IPFamily } from './kube/objects.js';

// Metrics
export { FINE_BUCKETS, LATENCY_BUCKETS, NPL_BUCKETS } from './metrics/buckets.js';
export { METRIC_NAMES, podCreationMetrics, policyMetrics, serviceMetrics } from './metrics/client-metrics.js';
export { TrackingMetrics, type MeasurementName } from './metrics/tracking.js';
export { startMetricsServer, type MetricsServer } from './metrics/server.js';

// Utilities
export { systemClock, sleep, type Clock } from './util/clock.js';
export { Logger, jsonLineSink, type LogRecord, type LogSink } from './util/log.js';
