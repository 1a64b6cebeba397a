/** @kpng/win-kernel/testing: the in-memory HNS that enforces HNS's rules, for tests of anything driving the backend. */
export { FakeHns, type FakeNetworkSpec, type HnsCall } from '../hcn/fake/fake-hns.js';
export {
  fakeNode,
  lbOn,
  endpointIps,
  remoteEndpoints,
  NETWORK,
  HOST_MAC,
  SOURCE_VIP,
  SILENT,
  type FakeNode,
  type FakeNodeSpec,
} from '../testing/harness.js';
