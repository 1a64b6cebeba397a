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

/** Traffic a direction allows: peers (undefined: any address) on ports (undefined: any port or protocol). */
export interface AllowRule {
  /** Pod IPs and canonical CIDRs (ipBlocks with their exceptions already cut out), sorted. */
  readonly peers?: readonly string[];
  readonly ports?: readonly PortRange[];
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

/** The node-local policy view: every non-hostNetwork pod of the node with an IP. */
export interface PolicyState {
  readonly pods: ReadonlyMap<PodKey, PodPolicy>;
}
