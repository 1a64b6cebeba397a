// Node-local state fixtures live in core (`@kpng/core/testing`), shared by every backend's tests.
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
} from '@kpng/core/testing';
