import type { EndpointPort, ServiceObject, ServicePort } from '../kube/types.js';
import { clusterIPFor, loadBalancerIPFor } from './address-plan.js';
import type { MetadataFactory } from './metadata.js';
import type { NodePortAllocator } from './nodeports.js';

/** What a scenario decided about one Service, before any address or port is allocated. */
export interface ServiceShape {
  readonly index: number;
  readonly name: string;
  readonly namespace: string;
  /** LoadBalancer Services are the `externalTrafficPolicy: Local` ones, with a health check node port. */
  readonly type: 'ClusterIP' | 'NodePort' | 'LoadBalancer';
  readonly clientIPAffinity: boolean;
  readonly twoPorts: boolean;
  /** Position among the scenario's LoadBalancer Services: picks the LB IP. */
  readonly loadBalancerIndex?: number;
}

export const CLIENT_IP_TIMEOUT_SECONDS = 10800;

interface PortPlan {
  readonly name: string;
  readonly port: number;
  readonly targetPort: number;
}

function portPlan(shape: ServiceShape): PortPlan[] {
  // LoadBalancer Services sharing an IP need distinct port numbers.
  const round = shape.loadBalancerIndex === undefined ? 0 : loadBalancerIPFor(shape.loadBalancerIndex).round;
  const plan = [{ name: 'http', port: 80 + round, targetPort: 8080 }];
  if (shape.twoPorts) plan.push({ name: 'https', port: 443 + round, targetPort: 8443 });
  return plan;
}

/** The EndpointSlice ports matching the Service's (numeric) target ports. */
export function endpointPortsFor(shape: ServiceShape): EndpointPort[] {
  return portPlan(shape).map((p) => ({ name: p.name, protocol: 'TCP', port: p.targetPort }));
}

export function buildService(shape: ServiceShape, meta: MetadataFactory, nodePorts: NodePortAllocator): ServiceObject {
  const external = shape.type !== 'ClusterIP';
  const ports: ServicePort[] = portPlan(shape).map((p) => ({
    name: p.name,
    protocol: 'TCP',
    port: p.port,
    targetPort: p.targetPort,
    ...(external ? { nodePort: nodePorts.allocate() } : {}),
  }));
  const clusterIP = clusterIPFor(shape.index);
  const isLoadBalancer = shape.type === 'LoadBalancer';
  const lbIP = shape.loadBalancerIndex === undefined ? undefined : loadBalancerIPFor(shape.loadBalancerIndex).ip;
  if (isLoadBalancer && lbIP === undefined)
    throw new Error(`LoadBalancer Service ${shape.name} has no loadBalancerIndex`);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: shape.name,
      namespace: shape.namespace,
      uid: meta.uid(),
      resourceVersion: meta.nextResourceVersion(),
      creationTimestamp: meta.createdAt,
      labels: { app: shape.name },
    },
    spec: {
      ...(isLoadBalancer ? { allocateLoadBalancerNodePorts: true } : {}),
      clusterIP,
      clusterIPs: [clusterIP],
      ...(external ? { externalTrafficPolicy: isLoadBalancer ? 'Local' : 'Cluster' } : {}),
      ...(isLoadBalancer ? { healthCheckNodePort: nodePorts.allocate() } : {}),
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports,
      selector: { app: shape.name },
      sessionAffinity: shape.clientIPAffinity ? 'ClientIP' : 'None',
      ...(shape.clientIPAffinity
        ? { sessionAffinityConfig: { clientIP: { timeoutSeconds: CLIENT_IP_TIMEOUT_SECONDS } } }
        : {}),
      type: shape.type,
    },
    status: { loadBalancer: lbIP === undefined ? {} : { ingress: [{ ip: lbIP, ipMode: 'VIP' }] } },
  };
}
