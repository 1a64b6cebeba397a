/**
 * The policy view's vocabulary: Pods, Namespaces and `networking.k8s.io/v1` NetworkPolicies reduced
 * to what enforcement needs (validated, canonical, readonly), and what the view computes from them
 * for the pods of one node. All NetworkPolicy semantics live in this folder as pure functions;
 * an enforcer only renders `PolicyState`.
 */
import type { Protocol } from '../model/types.js';

/** `namespace/name` of a Pod. */
export type PodKey = string & { readonly __brand: 'PodKey' };
/** `namespace/name` of a NetworkPolicy. */
export type PolicyKey = string & { readonly __brand: 'PolicyKey' };

export function podKey(namespace: string, name: string): PodKey {
  return [namespace, name].join('/') as PodKey;
}
export function policyKey(namespace: string, name: string): PolicyKey {
  return [namespace, name].join('/') as PolicyKey;
}

export type Labels = Readonly<Record<string, string>>;

export type SelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

export interface SelectorRequirement {
  readonly key: string;
  readonly operator: SelectorOperator;
  /** Sorted; empty for Exists / DoesNotExist. */
  readonly values: readonly string[];
}

/** A `metav1.LabelSelector`; both parts empty selects everything. */
export interface LabelSelector {
  readonly matchLabels: Labels;
  readonly matchExpressions: readonly SelectorRequirement[];
}

/** A named container port (`spec.containers[].ports[]` with a name). */
export interface NamedPort {
  readonly name: string;
  readonly protocol: Protocol;
  readonly port: number;
}

/** A Pod reduced to what policy needs. */
export interface PolicyPod {
  readonly namespace: string;
  readonly name: string;
  /** `status.podIPs`, canonical; empty while unassigned or once the pod has terminated. */
  readonly ips: readonly string[];
  readonly labels: Labels;
  /** `spec.nodeName`; "" while unscheduled. */
  readonly nodeName: string;
  readonly hostNetwork: boolean;
  /** Named container ports, sorted by name then protocol. */
  readonly ports: readonly NamedPort[];
}

export interface PolicyNamespace {
  readonly name: string;
  readonly labels: Labels;
}

export interface IPBlock {
  /** Canonical CIDR. */
  readonly cidr: string;
  /** Canonical CIDRs inside `cidr`. */
  readonly except: readonly string[];
}

/**
 * One `from`/`to` entry. A pod selector alone selects pods of the policy's namespace; a namespace
 * selector alone, every pod of the namespaces it selects; both, the pods it selects in those
 * namespaces. An ipBlock stands alone.
 */
export type PolicyPeer =
  | { readonly podSelector?: LabelSelector; readonly namespaceSelector?: LabelSelector; readonly ipBlock?: undefined }
  | { readonly ipBlock: IPBlock; readonly podSelector?: undefined; readonly namespaceSelector?: undefined };

export interface PolicyPort {
  readonly protocol: Protocol;
  /** A number, a named container port, or undefined for every port of `protocol`. */
  readonly port?: number | string;
  /** Only with a numeric `port`: the range's last port. */
  readonly endPort?: number;
}

export interface PolicyRule {
  /** Undefined (or empty in the API) means every peer. */
  readonly peers?: readonly PolicyPeer[];
  /** Empty means every port of every protocol. */
  readonly ports: readonly PolicyPort[];
}

export type PolicyType = 'Ingress' | 'Egress';

export interface NetworkPolicyModel {
  readonly namespace: string;
  readonly name: string;
  readonly podSelector: LabelSelector;
  /** Defaulted as the API server does: Ingress always, Egress when egress rules exist. */
  readonly policyTypes: readonly PolicyType[];
  readonly ingress: readonly PolicyRule[];
  readonly egress: readonly PolicyRule[];
}

/** An inclusive port range of one protocol (one port: `port === endPort`). */
export interface PortRange {
  readonly protocol: Protocol;
  readonly port: number;
  readonly endPort: number;
}

/**
 * `policy/direction/rule index`: the pods one rule's peers select, shared by every pod the policy
 * selects (an enforcer programs one set per group, so a peer's change is one element update).
 * An egress rule's named ports add a second group, `.../named`.
 */
export type PeerGroupKey = string & { readonly __brand: 'PeerGroupKey' };

export function peerGroupKey(policy: PolicyKey, direction: PolicyType, index: number, named = false): PeerGroupKey {
  return `${policy}/${direction}/${index}${named ? '/named' : ''}` as PeerGroupKey;
}

/** One destination of an egress rule on a named port: a peer pod's address and its port number. */
export interface PeerEndpoint {
  readonly ip: string;
  readonly protocol: Protocol;
  readonly port: number;
}

/**
 * The pods a rule's pod and namespace selectors select, as addresses (`ips`, sorted), or for the
 * named-port group of an egress rule, as (address, protocol, port) of each selected pod that has
 * a container port of that name (`endpoints`, sorted by address, protocol, port).
 */
export type PeerGroup =
  | { readonly kind: 'ips'; readonly ips: readonly string[] }
  | { readonly kind: 'endpoints'; readonly endpoints: readonly PeerEndpoint[] };

/** The peers of an allow rule: the addresses of a group's pods, and CIDRs (ipBlocks, exceptions cut out). */
export interface AllowPeers {
  /** Absent: no pod peer (ipBlocks only). */
  readonly group?: PeerGroupKey;
  /** Canonical CIDRs, sorted. */
  readonly cidrs: readonly string[];
}

/**
 * Traffic a direction allows: peers (undefined: any address) on ports (undefined: any port or
 * protocol); or, for an egress rule's named ports, the endpoints of a group (`endpoints`: peer
 * address, protocol and port together, `peers` and `ports` unset).
 */
export interface AllowRule {
  readonly peers?: AllowPeers;
  readonly ports?: readonly PortRange[];
  readonly endpoints?: PeerGroupKey;
}

export interface DirectionPolicy {
  /** Selected by at least one policy of this direction: only `allow` passes. */
  readonly isolated: boolean;
  readonly allow: readonly AllowRule[];
}

/** What the policies say about one pod of this node. */
export interface PodPolicy {
  readonly namespace: string;
  readonly name: string;
  readonly ips: readonly string[];
  readonly ingress: DirectionPolicy;
  readonly egress: DirectionPolicy;
}

/**
 * The node-local policy view: every non-hostNetwork pod of the node with an IP, and the peer
 * groups their rules name (only those). A peer's label change replaces a group, not the pods.
 */
export interface PolicyState {
  readonly pods: ReadonlyMap<PodKey, PodPolicy>;
  readonly groups: ReadonlyMap<PeerGroupKey, PeerGroup>;
}
