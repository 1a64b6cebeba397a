/**
 * @kpng/core/runtime: running a kpng process. `runProgram(backend)` is a whole program (flags,
 * source, servers, signals); `runProxy` is the same without the command line (the compat
 * kube-proxy, tests). The pieces below are for programs that assemble something else (benchmarks,
 * the compat kube-proxy's flags).
 */
/** `<program> explain NAMESPACE/NAME`: one Service as the backend programmed it (`BackendModule.explain`). */
export { formatExplain, runExplain, type ExplainIo } from '../runtime/explain.js';
/** The Service as the API server has it, for `explain` in backends whose kernel objects carry no names. */
export { fetchService, MAX_SERVICE_BYTES } from '../runtime/explain-service.js';
export { backendProgram, runProgram, type ProgramMain, type ProgramSettings } from '../runtime/run-program.js';
export { runProxy, type ProxyConfig, type RunningProxy, type StreamSource } from '../runtime/run-proxy.js';
export { terminationSignal, runAsMain } from '../runtime/signals.js';
export { installFaultPolicy } from '../runtime/process-faults.js';
export { registerProcessFaults } from '../metrics/process-faults.js';
export {
  defineBackend,
  type BackendModule,
  type BackendFlag,
  type BackendContext,
  type FlagValues,
} from '../runtime/backend-module.js';
export { logBackend, LogBackend } from '../runtime/log-backend.js';
/** A backend's `BackendModule` by name (`nft` is `@kpng/nft`), imported now: `kpng --backend`, the compat kube-proxy's modes. */
export { loadBackendModule, type ModuleImporter } from '../runtime/load-backend-module.js';
export { UsageError, DEFAULT_SOCKET, type ProgramOptions, type OutputFormat } from '../runtime/program-options.js';
export { formatState } from '../runtime/print-state.js';
export { NodeView, type NodeViewOptions, type StateConsumer } from '../runtime/node-view.js';

// Kubernetes Events (events.k8s.io/v1, as upstream's EventBroadcaster)
export {
  KubeEventRecorder,
  type EventRecorder,
  type EventSubject,
  type KubeEvent,
  type KubeEventRecorderOptions,
} from '../events/event-recorder.js';

// Sources
export type { Source, ModelSink } from '../watch/source.js';
export {
  KubeSource,
  EventBatcher,
  type Conversion,
  type EventBatcherOptions,
  loadKubeConfig,
  REFLECTOR_BACKOFF,
  UNREACHABLE_BACKOFF,
  type BackoffOptions,
  type KubeSourceOptions,
  DEFAULT_RATE_LIMIT,
  type RateLimit,
  type KubeConfigLocation,
} from '../watch/kube/index.js';
export { FileSource, type FileSourceOptions } from '../watch/file/index.js';
export { ApiSource, type ApiSourceOptions } from '../watch/api/index.js';
export { convertService, convertEndpointSlice, convertNode, type Converted } from '../watch/convert/index.js';

// The model and the node view, for programs that drive them directly
export type { ModelReader } from '../model/reader.js';
export type { ChangeSet } from '../model/change-set.js';
export { GlobalModel, type GlobalSnapshot, type ModelObserver } from '../model/global-model.js';
export { NodeViewer, computeNodeLocalState } from '../nodeview/node-viewer.js';
export {
  PolicyView,
  convertNamespace,
  convertNetworkPolicy,
  convertPod,
  type LabelSelector,
  type NetworkPolicyModel,
  type PolicyNamespace,
  type PolicyPod,
  type PolicyUpdate,
} from '../policy/index.js';

// Syncing
export { SyncLoop, type SyncLoopOptions } from '../sync/sync-loop.js';

// Servers (kube-proxy compatible metrics and health)
export { parseListenAddress, formatListenAddress, isLoopbackHost, type ListenAddress } from '../util/address.js';
export { createCoreMetrics, CoreMetrics, EXP_BUCKETS, NPL_BUCKETS, startMetricsServer } from '../metrics/index.js';
export { registerRestClientMetrics, type RestClientMetrics } from '../metrics/rest-client.js';
export { registerKubeWatchMetrics, type KubeWatchMetrics } from '../metrics/kube-watch.js';
export {
  ProxyHealth,
  startHealthServer,
  ServiceHealthServers,
  healthCheckAddressesFor,
  type HealthCheckAddresses,
} from '../health/index.js';
export { programHealthCheckAddresses } from '../runtime/health-check-bind.js';
