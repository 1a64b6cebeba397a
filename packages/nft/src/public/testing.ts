/**
 * @kpng/nft/testing: what tests of the backend (and of anything driving it) use: the in-memory
 * nft, the packet tracer over rendered rulesets, and node-local state fixtures built through
 * core's real node view.
 */
export { FakeNft, ScriptedExecer, type ScriptedCall } from '../nftables/testing.js';
export { RulesetTracer } from '../tracer/tracer.js';
export { UnknownRuleError } from '../tracer/parse.js';
export type { TraceNode, TraceOptions, TracePacket, TraceRecord, TraceResult, TraceVerdict } from '../tracer/types.js';
export {
  fixtureModel,
  nodeState,
  NODE_IPV4,
  NODE_IPV6,
  OTHER_NODE,
  THIS_NODE,
  type EndpointFixture,
  type NodeFixture,
  type PortFixture,
  type ServiceFixture,
} from '../testing/fixtures.js';
export { RecordingLogger, SILENT_LOGGER } from '../testing/logger.js';
// Benchmarks (tools/bench `--suite nft`)
export { kubeProxyShape } from '../testing/bench/kube-proxy-shape.js';
export { TimedNft, type TimedRun } from '../testing/bench/timed-nft.js';
export { kpngNftEntry, measurePipelineRss, peakRss, type PipelineRss, type PipelineRssOptions } from '../testing/bench/pipeline-rss.js';
export { compiledCopy, type WorkspacePackage } from '../testing/bench/compiled-copy.js';
export { allFeatures, clusterIPs, externalIPs, on, POD, REMOTE_NODE, type PodName } from '../testing/scenarios.js';
