/**
 * The global model: Kubernetes objects reduced to what a service proxy needs. Everything here is
 * validated (see `watch/convert`), normalised (IPs in canonical text form, lists sorted where order
 * carries no meaning) and readonly, so that two objects with equal content hash equally and a
 * resync, a heartbeat or a change to an irrelevant field produces no new revision.
 */
import type { NetworkPolicyModel, PodKey, PolicyKey, PolicyNamespace, PolicyPod } from '../policy/types.js';

export type IPFamily = 'IPv4' | 'IPv6';
export const IP_FAMILIES: readonly IPFamily[] = ['IPv4', 'IPv6'];
export type Protocol = 'TCP' | 'UDP' | 'SCTP';
export type ServiceType = 'ClusterIP' | 'NodePort' | 'LoadBalancer';
export type TrafficPolicy = 'Cluster' | 'Local';

/** `namespace/name`, the identity of a Service. */
export type ServiceKey = string & { readonly __brand: 'ServiceKey' };
/** `namespace/name:portName/protocol`, kube-proxy's ServicePortName. */
export type ServicePortKey = string & { readonly __brand: 'ServicePortKey' };
/** `namespace/sliceName`. */
export type SliceKey = string & { readonly __brand: 'SliceKey' };
/** A node's name. */
export type NodeName = string & { readonly __brand: 'NodeName' };

// Keys are built with `join`, which makes one flat string: a template literal of 13 characters or
// more is a V8 concatenation of its parts (about twice the memory), and every Service's and
// endpoint's key is kept by the model, the node view and the backends (~100k strings at s10k).
export function serviceKey(namespace: string, name: string): ServiceKey {
  return [namespace, name].join('/') as ServiceKey;
}
export function servicePortKey(svc: ServiceKey, portName: string, protocol: Protocol): ServicePortKey {
  return [svc, ':', portName, '/', protocol].join('') as ServicePortKey;
}
export function nodeName(name: string): NodeName {
  return name as NodeName;
}
export function sliceKey(namespace: string, name: string): SliceKey {
  return [namespace, name].join('/') as SliceKey;
}

export interface ServicePortSpec {
  /** Port name; "" when the Service has a single unnamed port. */
  readonly name: string;
  readonly protocol: Protocol;
  readonly port: number;
  /** 0 when no NodePort is allocated. */
  readonly nodePort: number;
  /** Numeric target port, or a named container port resolved per EndpointSlice port. */
  readonly targetPort: number | string;
}

export type SessionAffinity =
  { readonly type: 'None' } | { readonly type: 'ClientIP'; readonly timeoutSeconds: number };

export interface ServiceModel {
  readonly namespace: string;
  readonly name: string;
  readonly type: ServiceType;
  /** Canonical IPs, at most one per family, in spec order (`spec.clusterIPs`). */
  readonly clusterIPs: readonly string[];
  /** Canonical, sorted, de-duplicated. */
  readonly externalIPs: readonly string[];
  /** `status.loadBalancer.ingress[].ip` whose ipMode is VIP (or unset); canonical, sorted. */
  readonly loadBalancerIPs: readonly string[];
  /** Trimmed, canonical CIDRs (`a.b.c.d/n`), sorted. */
  readonly loadBalancerSourceRanges: readonly string[];
  readonly ports: readonly ServicePortSpec[];
  readonly sessionAffinity: SessionAffinity;
  readonly externalTrafficPolicy: TrafficPolicy;
  readonly internalTrafficPolicy: TrafficPolicy;
  /** 0 when none. */
  readonly healthCheckNodePort: number;
  /** `spec.trafficDistribution`, informational: the proxy follows the hints on endpoints. */
  readonly trafficDistribution?: string;
  /**
   * The `preserve-destination: "true"` annotation (upstream's literal key, read only by the Windows
   * kernelspace mode): set only when present, so Services without it model (and hash) as before.
   */
  readonly preserveDestination?: true;
}

export interface EndpointSlicePort {
  /** "" for an unnamed port. */
  readonly name: string;
  readonly protocol: Protocol;
  readonly port: number;
}

export interface EndpointModel {
  /** `addresses[0]`, canonical. */
  readonly address: string;
  /** nil conditions are already defaulted: ready=true, serving=true, terminating=false. */
  readonly ready: boolean;
  readonly serving: boolean;
  readonly terminating: boolean;
  readonly nodeName?: string;
  readonly zone?: string;
  /** `hints.forZones[].name`, sorted; undefined when the endpoint has no zone hints. */
  readonly zoneHints?: readonly string[];
  /** `hints.forNodes[].name`, sorted; undefined when the endpoint has no node hints. */
  readonly nodeHints?: readonly string[];
}

export interface EndpointSliceModel {
  readonly namespace: string;
  readonly name: string;
  /** The `kubernetes.io/service-name` label. */
  readonly serviceName: string;
  readonly addressType: IPFamily;
  /** Ports with a nil name-less port number or port 0 are dropped at conversion. */
  readonly ports: readonly EndpointSlicePort[];
  readonly endpoints: readonly EndpointModel[];
}

export interface NodeModel {
  readonly name: string;
  /** Only the labels the proxy uses: topology.kubernetes.io/*, kubernetes.io/hostname. */
  readonly labels: Readonly<Record<string, string>>;
  /** Canonical CIDRs from `spec.podCIDRs`. */
  readonly podCIDRs: readonly string[];
  /** InternalIP then ExternalIP addresses from `status.addresses`, canonical. */
  readonly addresses: readonly string[];
  /** False when the node is being deleted (deletionTimestamp or the autoscaler's ToBeDeleted taint). */
  readonly eligible: boolean;
}

/**
 * A `networking.k8s.io` ServiceCIDR: the ranges ClusterIPs are allocated from. The union of every
 * object's CIDRs is what nftables mode guards (traffic to an unallocated IP in them is dropped).
 */
export interface ServiceCIDRModel {
  readonly name: string;
  /** Canonical CIDRs from `spec.cidrs` (one per family). */
  readonly cidrs: readonly string[];
}

/**
 * Service, EndpointSlice and Node are required (nothing is served before their initial lists); ServiceCIDR is optional.
 * Pod, Namespace and NetworkPolicy are watched only for NetworkPolicy enforcement (`POLICY_KINDS`).
 */
export type ObjectKind = ServiceObjectKind | PolicyKind;
export type ServiceObjectKind = 'Service' | 'EndpointSlice' | 'Node' | 'ServiceCIDR';
export type PolicyKind = 'Pod' | 'Namespace' | 'NetworkPolicy';
export const POLICY_KINDS: readonly PolicyKind[] = ['Pod', 'Namespace', 'NetworkPolicy'];

/** One change from a source, already converted and validated. */
export type ModelEvent =
  | { readonly kind: 'Service'; readonly op: 'upsert'; readonly key: ServiceKey; readonly object: ServiceModel }
  | { readonly kind: 'Service'; readonly op: 'delete'; readonly key: ServiceKey }
  | {
      readonly kind: 'EndpointSlice';
      readonly op: 'upsert';
      readonly key: SliceKey;
      readonly object: EndpointSliceModel;
      /** `endpoints.kubernetes.io/last-change-trigger-time`, epoch milliseconds. */
      readonly triggerTime?: number;
    }
  | { readonly kind: 'EndpointSlice'; readonly op: 'delete'; readonly key: SliceKey }
  | { readonly kind: 'Node'; readonly op: 'upsert'; readonly key: NodeName; readonly object: NodeModel }
  | { readonly kind: 'Node'; readonly op: 'delete'; readonly key: NodeName }
  | { readonly kind: 'ServiceCIDR'; readonly op: 'upsert'; readonly key: string; readonly object: ServiceCIDRModel }
  | { readonly kind: 'ServiceCIDR'; readonly op: 'delete'; readonly key: string }
  | { readonly kind: 'Pod'; readonly op: 'upsert'; readonly key: PodKey; readonly object: PolicyPod }
  | { readonly kind: 'Pod'; readonly op: 'delete'; readonly key: PodKey }
  | { readonly kind: 'Namespace'; readonly op: 'upsert'; readonly key: string; readonly object: PolicyNamespace }
  | { readonly kind: 'Namespace'; readonly op: 'delete'; readonly key: string }
  | {
      readonly kind: 'NetworkPolicy';
      readonly op: 'upsert';
      readonly key: PolicyKey;
      readonly object: NetworkPolicyModel;
    }
  | { readonly kind: 'NetworkPolicy'; readonly op: 'delete'; readonly key: PolicyKey };
