/**
 * The two clusters the connection-rate suite compares: the scenario (s10k...) and its first few
 * Services, each plus one target Service whose only endpoint is a real lab pod, so fresh
 * connections through its ClusterIP reach an echo server.
 */
import { SERVICE_NAME_LABEL, type EndpointSliceObject, type ServiceObject } from '../kube/types.js';
import { readyEndpoint } from '../scenarios/endpoint-slices.js';
import { DEFAULT_CREATED_AT, type Scenario } from '../scenarios/scenario.js';

/** Past every scenario's ClusterIPs (198.19.0.10 + i: s50k ends at 198.19.195.89). */
export const TARGET_CLUSTER_IP = '198.19.250.1';
export const TARGET_PORT = 80;
const NAME = 'conn-rate-target';
const NAMESPACE = 'bench-00';

/** `base` with only its first `count` Services and their slices (the nodes unchanged). */
export function firstServices(base: Scenario, count: number): Scenario {
  const services = base.services.slice(0, count);
  const keep = new Set(services.map((s) => `${s.metadata.namespace ?? ''}/${s.metadata.name}`));
  const endpointSlices = base.endpointSlices.filter((slice) =>
    keep.has(`${slice.metadata.namespace ?? ''}/${slice.metadata.labels?.[SERVICE_NAME_LABEL] ?? ''}`),
  );
  return { ...base, name: `${base.name}-first-${count}`, services, endpointSlices };
}

/** `base` plus the target Service (TCP `TARGET_PORT` -> `targetPort` on `endpointIp`, on the bench node). */
export function withTarget(base: Scenario, endpointIp: string, targetPort: number): Scenario {
  const node = base.nodes.find((n) => n.metadata.name === base.benchNode);
  const zone = node?.metadata.labels?.['topology.kubernetes.io/zone'];
  if (zone === undefined) throw new Error(`the bench node ${base.benchNode} has no zone`);
  const meta = (name: string, uid: string) => ({
    name,
    namespace: NAMESPACE,
    uid,
    resourceVersion: '1',
    creationTimestamp: DEFAULT_CREATED_AT,
  });
  const service: ServiceObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(NAME, '00000000-0000-4000-8000-00000000c0de'),
    spec: {
      type: 'ClusterIP',
      clusterIP: TARGET_CLUSTER_IP,
      clusterIPs: [TARGET_CLUSTER_IP],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports: [{ name: 'http', protocol: 'TCP', port: TARGET_PORT, targetPort }],
      selector: { app: NAME },
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
    },
    status: { loadBalancer: {} },
  };
  const slice: EndpointSliceObject = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      ...meta(`${NAME}-x`, '00000000-0000-4000-8000-00000000c0df'),
      labels: { [SERVICE_NAME_LABEL]: NAME },
      annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': DEFAULT_CREATED_AT },
    },
    addressType: 'IPv4',
    endpoints: [readyEndpoint(endpointIp, base.benchNode, zone)],
    ports: [{ name: 'http', protocol: 'TCP', port: targetPort }],
  };
  return { ...base, services: [...base.services, service], endpointSlices: [...base.endpointSlices, slice] };
}
