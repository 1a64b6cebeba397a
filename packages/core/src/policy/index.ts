/** The node-local policy view: NetworkPolicy semantics as pure functions, kept incrementally. */
export type {
  AllowPeers,
  AllowRule,
  DirectionPolicy,
  IPBlock,
  LabelSelector,
  Labels,
  NamedPort,
  NetworkPolicyModel,
  PeerEndpoint,
  PeerGroup,
  PeerGroupKey,
  PodKey,
  PodPolicy,
  PolicyKey,
  PolicyNamespace,
  PolicyPeer,
  PolicyPod,
  PolicyPort,
  PolicyRule,
  PolicyState,
  PolicyType,
  PortRange,
  SelectorOperator,
  SelectorRequirement,
} from './types.js';
export { peerGroupKey, podKey, policyKey } from './types.js';
export { EVERYTHING, matchesSelector } from './selector.js';
export { ipBlockCIDRs } from './ip-block.js';
export { podPolicy } from './evaluate.js';
export { PolicyView, type PolicyUpdate } from './policy-view.js';
export { allowsConnection, type Connection } from './allows.js';
export { convertNamespace, convertNetworkPolicy, convertPod, POLICY_LIMITS } from './convert.js';
