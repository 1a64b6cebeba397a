/**
 * The node-local state: what a backend needs to program one node, with every piece of Service
 * business logic already applied (kube-proxy's CategorizeEndpoints, traffic policies, terminating
 * fallback, topology, family filtering). Backends render this; they never re-derive policy.
 */
import type { PolicyState } from '../policy/types.js';
import type { NodePortAddresses } from './node-port-addresses.js';
import type {
  IPFamily,
  NodeName,
  Protocol,
  ServiceKey,
  ServicePortKey,
  ServiceType,
  SessionAffinity,
} from '../model/types.js';

export interface LocalEndpoint {
  readonly ip: string;
  /** The target port resolved for this service port (named ports resolved per EndpointSlice). */
  readonly port: number;
  readonly ready: boolean;
  readonly serving: boolean;
  readonly terminating: boolean;
  /** The endpoint runs on this node. */
  readonly isLocal: boolean;
  readonly nodeName?: string;
  readonly zone?: string;
}

/** The endpoints of one service port for one IP family, categorised for this node. */
export interface FamilyEndpoints {
  /** Endpoints for Cluster-policy traffic (ready, topology-filtered, else serving+terminating). Empty when unused. */
  readonly cluster: readonly LocalEndpoint[];
  /** Endpoints for Local-policy traffic (local ready, else local serving+terminating). Empty when unused. */
  readonly local: readonly LocalEndpoint[];
  /** What ClusterIP traffic uses: `local` when internalTrafficPolicy is Local, else `cluster`. */
  readonly internal: readonly LocalEndpoint[];
  /** What NodePort/external/LB traffic uses: `local` when externalTrafficPolicy is Local, else `cluster`. */
  readonly external: readonly LocalEndpoint[];
  /** Union of cluster and local: every endpoint this node may send traffic to (for affinity, per-endpoint objects). */
  readonly allReachable: readonly LocalEndpoint[];
  /**
   * True when the service port has any usable endpoint anywhere (ready, or serving+terminating).
   * False means: REJECT new connections. True with an empty `internal`/`external` list means DROP.
   */
  readonly hasAnyEndpoints: boolean;
  /** Serving endpoints regardless of policy or topology: UDP conntrack cleanup keeps flows to these. */
  readonly serving: readonly LocalEndpoint[];
  /**
   * This port is reachable from outside in this family: it has a NodePort, or the family has an
   * external or load-balancer IP (upstream decides it per service port and per single-family proxier).
   * Backends read this, never re-derive it.
   */
  readonly externallyAccessible: boolean;
  /** externalTrafficPolicy is Local and this port is externally accessible in this family. */
  readonly externalPolicyLocal: boolean;
}

export interface LocalServicePort {
  readonly key: ServicePortKey;
  readonly name: string;
  readonly protocol: Protocol;
  readonly port: number;
  /** 0 when none. */
  readonly nodePort: number;
  /** Per family the Service has a ClusterIP of. */
  readonly endpoints: Readonly<Partial<Record<IPFamily, FamilyEndpoints>>>;
}

export interface FamilyAddresses {
  readonly clusterIP: string;
  readonly externalIPs: readonly string[];
  readonly loadBalancerIPs: readonly string[];
  readonly loadBalancerSourceRanges: readonly string[];
}

export interface LocalService {
  readonly key: ServiceKey;
  readonly namespace: string;
  readonly name: string;
  readonly type: ServiceType;
  /** One entry per family the Service has a ClusterIP in; addresses filtered to that family. */
  readonly families: Readonly<Partial<Record<IPFamily, FamilyAddresses>>>;
  readonly sessionAffinity: SessionAffinity;
  /**
   * externalTrafficPolicy is Local and the Service is externally accessible (on any port, in any
   * family: its health-check node port). Per port and family: `FamilyEndpoints.externalPolicyLocal`.
   */
  readonly externalPolicyLocal: boolean;
  readonly internalPolicyLocal: boolean;
  /** Has a NodePort, an external IP or a load-balancer IP (per port and family: `FamilyEndpoints.externallyAccessible`). */
  readonly externallyAccessible: boolean;
  /** 0 when none. */
  readonly healthCheckNodePort: number;
  /** Distinct local ready endpoint IPs (all ports, all families): what the health-check node port reports. */
  readonly localReadyEndpoints: number;
  readonly ports: readonly LocalServicePort[];
  /**
   * The Service carries upstream's `preserve-destination: "true"` annotation (absent otherwise).
   * Only the Windows backend renders it, as upstream's winkernel proxier: its load-balancer IPs and
   * NodePort deliver to this node's endpoints only, keeping the VIP as destination (DSR).
   */
  readonly preserveDestination?: true;
}

export interface LocalNode {
  readonly name: NodeName;
  readonly labels: Readonly<Record<string, string>>;
  readonly zone?: string;
  readonly podCIDRs: readonly string[];
  readonly addresses: readonly string[];
  readonly eligible: boolean;
  /**
   * The cluster's service CIDRs (the union of the ServiceCIDR objects, sorted), when any exist:
   * nftables mode drops traffic to unallocated IPs in them. Unset: none known, use configured ranges.
   */
  readonly serviceCIDRs?: readonly string[];
  /**
   * `nodePortAddresses` resolved over the host's interfaces (per family `all` or the addresses):
   * where NodePorts are accepted. Set by the sync stage before each sync, in the process that
   * programs the kernel (its interfaces, not the Node object's addresses, as upstream); never
   * sent over the stream. Unset: every local address.
   */
  readonly nodePortAddresses?: NodePortAddresses;
}

/** A complete node-local state at one revision of the global model. */
export interface NodeLocalState {
  readonly node: LocalNode;
  /** Sorted by key. */
  readonly services: readonly LocalService[];
  /**
   * The node-local policy view (`NodeViewOptions.policy`), once Pods, Namespaces and NetworkPolicies
   * delivered their initial lists; unset otherwise (nothing to enforce yet).
   */
  readonly policy?: PolicyState;
}

/** What changed since the previous state handed to the same consumer. */
export interface StateChanges {
  /** Services whose local form changed, appeared or disappeared; `undefined` means "everything" (full sync). */
  readonly updatedServices?: ReadonlySet<ServiceKey>;
  /** Epoch ms of `last-change-trigger-time` values newer than core's start, per Service. */
  readonly triggerTimes: ReadonlyMap<ServiceKey, readonly number[]>;
  /** The node's labels (topology) changed: the next sync should be full. */
  readonly nodeChanged: boolean;
  /**
   * The policy view changed: epoch ms at which the core applied the earliest API event behind the
   * change (what the policy sync latency is measured from). Unset: no policy change.
   */
  readonly policyChangedAt?: number;
}
