/** Core's node-local view: the global model reduced, for one node, to what its backend programs. */
export type {
  FamilyAddresses,
  FamilyEndpoints,
  LocalEndpoint,
  LocalNode,
  LocalService,
  LocalServicePort,
  NodeLocalState,
  StateChanges,
} from './types.js';
export {
  categorizeEndpoints,
  type CategorizedEndpoints,
  type EndpointCandidate,
  type EndpointPolicy,
} from './categorize-endpoints.js';
export { buildLocalService } from './build-local-service.js';
export { NodeViewer, computeNodeLocalState, type NodeViewUpdate } from './node-viewer.js';
export { localNodeOf, nodeContextOf, ZONE_LABEL, type NodeContext } from './node-context.js';
export { localEndpointEqual, localNodeEqual, localServiceEqual } from './equal.js';
export { cidrContains, endpointString, familyOf } from './ip.js';
