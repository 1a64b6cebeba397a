/**
 * Raw objects for conversion tests, in the shape the API server returns them, and `patched` to
 * derive one variation per test case. Used by tests only.
 */

export type Raw = Record<string, unknown>;

/**
 * A deep copy of `obj` with `path` (dot-separated, numeric parts index lists) set to `value`;
 * `undefined` deletes the field.
 */
export function patched(obj: Raw, path: string, value: unknown): Raw {
  const copy = structuredClone(obj);
  const parts = path.split('.');
  let node: Record<string, unknown> = copy;
  for (const part of parts.slice(0, -1)) {
    node[part] ??= {};
    node = node[part] as Record<string, unknown>;
  }
  const last = parts[parts.length - 1]!;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

export const rawService: Raw = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' } },
  spec: {
    type: 'ClusterIP',
    clusterIP: '198.19.0.10',
    clusterIPs: ['198.19.0.10'],
    ports: [
      { name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 },
      { name: 'dns', protocol: 'UDP', port: 53, targetPort: 'dns' },
    ],
  },
  status: { loadBalancer: {} },
};

export const rawSlice: Raw = {
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: {
    name: 'web-abc12',
    namespace: 'shop',
    labels: { 'kubernetes.io/service-name': 'web' },
    annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': '2025-03-01T10:00:00Z' },
  },
  addressType: 'IPv4',
  ports: [{ name: 'http', protocol: 'TCP', port: 8080 }],
  endpoints: [
    {
      addresses: ['198.18.1.5'],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: 'node-a',
      zone: 'zone-a',
    },
  ],
};

export const rawNode: Raw = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {
    name: 'node-a',
    labels: {
      'kubernetes.io/hostname': 'node-a',
      'topology.kubernetes.io/zone': 'zone-a',
      'node-role.kubernetes.io/worker': '',
    },
  },
  spec: { podCIDR: '198.18.1.0/24', podCIDRs: ['198.18.1.0/24', '2001:db8:1::/64'] },
  status: {
    addresses: [
      { type: 'Hostname', address: 'node-a' },
      { type: 'ExternalIP', address: '203.0.113.11' },
      { type: 'InternalIP', address: '198.18.255.1' },
    ],
  },
};
