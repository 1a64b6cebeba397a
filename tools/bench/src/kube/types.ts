/**
 * The raw Kubernetes API JSON shapes the generators emit: the fields `kubectl get -o yaml` prints for
 * the objects a service proxy reads, nothing reduced or renamed. Optional fields are omitted, never
 * set to `undefined`, so that JSON and YAML output are identical in content.
 */

export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly generateName?: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly generation?: number;
  readonly creationTimestamp: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly ownerReferences?: readonly OwnerReference[];
}

export interface ServicePort {
  readonly name: string;
  readonly protocol: 'TCP' | 'UDP' | 'SCTP';
  readonly port: number;
  readonly targetPort: number | string;
  readonly nodePort?: number;
}

export interface ServiceSpec {
  readonly type: 'ClusterIP' | 'NodePort' | 'LoadBalancer';
  readonly clusterIP: string;
  readonly clusterIPs: readonly string[];
  readonly ipFamilies: readonly ('IPv4' | 'IPv6')[];
  readonly ipFamilyPolicy: 'SingleStack' | 'PreferDualStack' | 'RequireDualStack';
  readonly ports: readonly ServicePort[];
  readonly selector: Readonly<Record<string, string>>;
  readonly sessionAffinity: 'None' | 'ClientIP';
  readonly sessionAffinityConfig?: { readonly clientIP: { readonly timeoutSeconds: number } };
  readonly internalTrafficPolicy: 'Cluster' | 'Local';
  /** Only on NodePort and LoadBalancer Services, as the API server defaults it. */
  readonly externalTrafficPolicy?: 'Cluster' | 'Local';
  readonly healthCheckNodePort?: number;
  readonly allocateLoadBalancerNodePorts?: boolean;
}

export interface LoadBalancerIngress {
  readonly ip: string;
  readonly ipMode?: 'VIP' | 'Proxy';
}

export interface ServiceObject {
  readonly apiVersion: 'v1';
  readonly kind: 'Service';
  readonly metadata: ObjectMeta;
  readonly spec: ServiceSpec;
  readonly status: { readonly loadBalancer: { readonly ingress?: readonly LoadBalancerIngress[] } };
}

export interface EndpointConditions {
  readonly ready: boolean;
  readonly serving: boolean;
  readonly terminating: boolean;
}

export interface Endpoint {
  readonly addresses: readonly string[];
  readonly conditions: EndpointConditions;
  readonly nodeName?: string;
  readonly zone?: string;
}

export interface EndpointPort {
  readonly name: string;
  readonly protocol: 'TCP' | 'UDP' | 'SCTP';
  readonly port: number;
}

export interface EndpointSliceObject {
  readonly apiVersion: 'discovery.k8s.io/v1';
  readonly kind: 'EndpointSlice';
  readonly metadata: ObjectMeta;
  readonly addressType: 'IPv4' | 'IPv6';
  readonly endpoints: readonly Endpoint[];
  readonly ports: readonly EndpointPort[];
}

export interface NodeAddress {
  readonly type: 'InternalIP' | 'ExternalIP' | 'Hostname';
  readonly address: string;
}

export interface NodeCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
  readonly lastHeartbeatTime: string;
  readonly lastTransitionTime: string;
}

export interface NodeObject {
  readonly apiVersion: 'v1';
  readonly kind: 'Node';
  readonly metadata: ObjectMeta;
  readonly spec: { readonly podCIDR: string; readonly podCIDRs: readonly string[] };
  readonly status: { readonly addresses: readonly NodeAddress[]; readonly conditions: readonly NodeCondition[] };
}

export type KubeObject = ServiceObject | EndpointSliceObject | NodeObject;

/** What `kubectl get -o yaml` prints for several objects. */
export interface KubeList {
  readonly apiVersion: 'v1';
  readonly kind: 'List';
  readonly metadata: { readonly resourceVersion: string };
  readonly items: readonly KubeObject[];
}

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const ENDPOINTSLICE_CONTROLLER = 'endpointslice-controller.k8s.io';
export const TRIGGER_TIME_ANNOTATION = 'endpoints.kubernetes.io/last-change-trigger-time';
export const MAX_ENDPOINTS_PER_SLICE = 100;
