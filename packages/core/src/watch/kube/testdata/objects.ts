/** Raw Kubernetes objects for the kube source's API end-to-end tests (addresses from TESTING.md's plan). */

export const NAMESPACE = 'shop';

export function service(name: string, options: { labels?: Record<string, string>; port?: number; ip?: string } = {}) {
  return {
    kind: 'Service',
    apiVersion: 'v1',
    metadata: { name, namespace: NAMESPACE, labels: options.labels ?? {} },
    spec: {
      type: 'ClusterIP',
      clusterIP: options.ip ?? '198.19.0.10',
      clusterIPs: [options.ip ?? '198.19.0.10'],
      ports: [{ name: 'http', protocol: 'TCP', port: options.port ?? 80, targetPort: 8080 }],
    },
  };
}

export function endpointSlice(
  name: string,
  serviceName: string,
  options: { labels?: Record<string, string>; addresses?: readonly string[] } = {},
) {
  return {
    kind: 'EndpointSlice',
    apiVersion: 'discovery.k8s.io/v1',
    metadata: {
      name,
      namespace: NAMESPACE,
      labels: { 'kubernetes.io/service-name': serviceName, ...options.labels },
    },
    addressType: 'IPv4',
    ports: [{ name: 'http', protocol: 'TCP', port: 8080 }],
    endpoints: (options.addresses ?? ['198.18.1.5']).map((ip) => ({
      addresses: [ip],
      conditions: { ready: true },
      nodeName: 'node-a',
    })),
  };
}

export function node(name: string, zone = 'zone-a') {
  return {
    kind: 'Node',
    apiVersion: 'v1',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone } },
    spec: { podCIDRs: ['198.18.1.0/24'] },
    status: { addresses: [{ type: 'InternalIP', address: '198.18.255.1' }] },
  };
}
