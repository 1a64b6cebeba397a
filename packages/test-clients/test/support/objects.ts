import type { EndpointSlice, KubeObject, ObjectMeta, Pod, Service } from '../../src/kube/objects.js';

/** Test objects, shaped as the API server sends them (and as the fake API server accepts them). */
export type Api<T extends KubeObject> = T & {
  readonly [field: string]: unknown;
  readonly kind: string;
  readonly metadata: ObjectMeta & { readonly name: string; readonly [field: string]: unknown };
};

export function pod(
  name: string,
  options: { ip?: string; ips?: string[]; created?: number; namespace?: string; labels?: Record<string, string> } = {},
): Api<Pod> {
  const ips = options.ips ?? (options.ip !== undefined ? [options.ip] : []);
  return {
    kind: 'Pod',
    metadata: {
      name,
      namespace: options.namespace ?? 'test-policy',
      uid: `uid-${name}`,
      labels: options.labels ?? { target: 'test-policy' },
      ...(options.created !== undefined
        ? { creationTimestamp: new Date(Math.floor(options.created / 1000) * 1000).toISOString().replace('.000Z', 'Z') }
        : {}),
    },
    status: ips[0] !== undefined ? { podIP: ips[0], podIPs: ips.map((ip) => ({ ip })) } : {},
  };
}

export function policy(
  name: string,
  options: { created?: number; createdAtAnnotation?: number; namespace?: string } = {},
): Api<KubeObject> {
  return {
    kind: 'NetworkPolicy',
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      uid: `uid-${name}`,
      ...(options.created !== undefined
        ? { creationTimestamp: new Date(Math.floor(options.created / 1000) * 1000).toISOString().replace('.000Z', 'Z') }
        : {}),
      ...(options.createdAtAnnotation !== undefined
        ? { annotations: { 'test-clients.kpng.io/created-at': new Date(options.createdAtAnnotation).toISOString() } }
        : {}),
    },
  };
}

export function service(
  name: string,
  options: { clusterIPs?: string[]; port?: number; nodePort?: number; namespace?: string } = {},
): Api<Service> {
  return {
    kind: 'Service',
    metadata: { name, namespace: options.namespace ?? 'default' },
    spec: {
      clusterIPs: options.clusterIPs ?? ['198.19.0.10'],
      ports: [
        {
          name: 'http',
          protocol: 'TCP',
          port: options.port ?? 80,
          ...(options.nodePort !== undefined ? { nodePort: options.nodePort } : {}),
        },
      ],
    },
  };
}

export interface SliceEndpoint {
  readonly name: string;
  readonly ip: string;
  readonly ready?: boolean;
}

export function slice(
  name: string,
  service: string,
  endpoints: readonly SliceEndpoint[],
  options: { family?: 'IPv4' | 'IPv6'; triggerTime?: number; namespace?: string; rv?: string } = {},
): Api<EndpointSlice> {
  return {
    kind: 'EndpointSlice',
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      labels: { 'kubernetes.io/service-name': service },
      ...(options.rv !== undefined ? { resourceVersion: options.rv } : {}),
      ...(options.triggerTime !== undefined
        ? {
            annotations: {
              'endpoints.kubernetes.io/last-change-trigger-time': new Date(options.triggerTime).toISOString(),
            },
          }
        : {}),
    },
    addressType: options.family ?? 'IPv4',
    endpoints: endpoints.map((e) => ({
      addresses: [e.ip],
      conditions: { ready: e.ready ?? true },
      targetRef: { kind: 'Pod', name: e.name, namespace: options.namespace ?? 'default' },
    })),
  };
}
