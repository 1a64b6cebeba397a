/**
 * The resources the fake API server knows, and how request paths map onto them. Paths follow the
 * real API's layout: `/api/v1/...` for the core group, `/apis/<group>/<version>/...` otherwise,
 * cluster-wide or under `/namespaces/<ns>/` for namespaced resources.
 */

export interface ResourceType {
  /** Plural, as in the path: `services`. */
  readonly plural: string;
  readonly kind: string;
  readonly listKind: string;
  /** `v1`, `discovery.k8s.io/v1`. */
  readonly apiVersion: string;
  readonly namespaced: boolean;
}

export const RESOURCES: readonly ResourceType[] = [
  { plural: 'services', kind: 'Service', listKind: 'ServiceList', apiVersion: 'v1', namespaced: true },
  {
    plural: 'endpointslices',
    kind: 'EndpointSlice',
    listKind: 'EndpointSliceList',
    apiVersion: 'discovery.k8s.io/v1',
    namespaced: true,
  },
  { plural: 'nodes', kind: 'Node', listKind: 'NodeList', apiVersion: 'v1', namespaced: false },
  // For the latency test clients (@kpng/test-clients): target pods, network policies, namespaces.
  { plural: 'pods', kind: 'Pod', listKind: 'PodList', apiVersion: 'v1', namespaced: true },
  { plural: 'namespaces', kind: 'Namespace', listKind: 'NamespaceList', apiVersion: 'v1', namespaced: false },
  {
    plural: 'networkpolicies',
    kind: 'NetworkPolicy',
    listKind: 'NetworkPolicyList',
    apiVersion: 'networking.k8s.io/v1',
    namespaced: true,
  },
  // Events a proxy posts (events.k8s.io/v1, as client-go's EventBroadcaster): created with POST.
  { plural: 'events', kind: 'Event', listKind: 'EventList', apiVersion: 'events.k8s.io/v1', namespaced: true },
  // ServiceCIDRs: GA (v1) since Kubernetes 1.33, beta before; an object lives in the version it was created with.
  {
    plural: 'servicecidrs',
    kind: 'ServiceCIDR',
    listKind: 'ServiceCIDRList',
    apiVersion: 'networking.k8s.io/v1',
    namespaced: false,
  },
  {
    plural: 'servicecidrs',
    kind: 'ServiceCIDR',
    listKind: 'ServiceCIDRList',
    apiVersion: 'networking.k8s.io/v1beta1',
    namespaced: false,
  },
];

/** The resource of a kind: the one of `apiVersion` when it names a served version, else the first. */
export function resourceForKind(kind: unknown, apiVersion?: unknown): ResourceType | undefined {
  return (
    RESOURCES.find((r) => r.kind === kind && r.apiVersion === apiVersion) ?? RESOURCES.find((r) => r.kind === kind)
  );
}

/** `networking.k8s.io/v1/servicecidrs`: how `FakeApiServer.start({ unserved })` names a resource. */
export function resourceId(r: ResourceType): string {
  return `${r.apiVersion}/${r.plural}`;
}

/** What a request path addresses: a collection (optionally in one namespace) or one named object. */
export interface ResourcePath {
  readonly resource: ResourceType;
  readonly namespace?: string;
  readonly name?: string;
}

function prefixOf(r: ResourceType): string {
  return r.apiVersion.includes('/') ? `/apis/${r.apiVersion}` : `/api/${r.apiVersion}`;
}

export function parseResourcePath(pathname: string): ResourcePath | undefined {
  for (const resource of RESOURCES) {
    const prefix = prefixOf(resource);
    if (!pathname.startsWith(prefix + '/')) continue;
    const segments = pathname
      .slice(prefix.length + 1)
      .split('/')
      .map(decodeURIComponent);
    let namespace: string | undefined;
    if (resource.namespaced && segments[0] === 'namespaces' && segments.length >= 3) {
      namespace = segments[1];
      segments.splice(0, 2);
    }
    if (segments[0] !== resource.plural || segments.length > 2) continue;
    const name = segments[1];
    if (name === '') continue;
    return {
      resource,
      ...(namespace !== undefined ? { namespace } : {}),
      ...(name !== undefined ? { name } : {}),
    };
  }
  return undefined;
}

/** The cluster-wide collection path of a resource, e.g. `/apis/discovery.k8s.io/v1/endpointslices`. */
export function collectionPath(resource: ResourceType): string {
  return `${prefixOf(resource)}/${resource.plural}`;
}
