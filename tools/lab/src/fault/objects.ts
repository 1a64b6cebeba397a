// The cluster the e2e's fake API server serves: one node (the lab's), one ClusterIP Service whose
// endpoint is a pod on that node. Addresses from the lab's plan.
import { ADDRESS_PLAN, type LabPod } from '../netns/index.js';

export const NODE_NAME = 'lab-node';
export const CLUSTER_IP = '198.19.0.10';
export const SERVICE_PORT = 80;
export const ECHO_PORT = 8080;

/** The lab node; `ipv4Only`: a single-stack IPv4 node (no IPv6 address or pod CIDR). */
export function node({ ipv4Only = false }: { readonly ipv4Only?: boolean } = {}) {
  const plan = ADDRESS_PLAN.node;
  return {
    kind: 'Node',
    apiVersion: 'v1',
    metadata: { name: NODE_NAME, labels: { 'kubernetes.io/hostname': NODE_NAME } },
    spec: { podCIDR: plan.podCidrV4, podCIDRs: ipv4Only ? [plan.podCidrV4] : [plan.podCidrV4, plan.podCidrV6] },
    status: {
      addresses: [
        { type: 'InternalIP', address: plan.ipv4 },
        ...(ipv4Only ? [] : [{ type: 'InternalIP', address: plan.ipv6 }]),
      ],
    },
  };
}

export function service() {
  return {
    kind: 'Service',
    apiVersion: 'v1',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      type: 'ClusterIP',
      clusterIP: CLUSTER_IP,
      clusterIPs: [CLUSTER_IP],
      ipFamilies: ['IPv4'],
      ports: [{ name: 'http', protocol: 'TCP', port: SERVICE_PORT, targetPort: ECHO_PORT }],
    },
  };
}

export function endpointSlice(pods: readonly LabPod[]) {
  return {
    kind: 'EndpointSlice',
    apiVersion: 'discovery.k8s.io/v1',
    metadata: { name: 'web-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4',
    ports: [{ name: 'http', protocol: 'TCP', port: ECHO_PORT }],
    endpoints: pods.map((pod) => ({
      addresses: [pod.ipv4],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: NODE_NAME,
    })),
  };
}
