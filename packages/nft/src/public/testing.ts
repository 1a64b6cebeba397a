/**
 * @kpng/nft/testing: what tests of the backend (and of anything driving it) use: the packet tracer over rendered rulesets, and node-local state fixtures built through
 * core's real node view.
 */
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
export { allFeatures, clusterIPs, externalIPs, on, POD, REMOTE_NODE, type PodName } from '../testing/scenarios.js';
