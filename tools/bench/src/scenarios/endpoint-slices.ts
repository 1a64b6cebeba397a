import {
  ENDPOINTSLICE_CONTROLLER,
  MANAGED_BY_LABEL,
  MAX_ENDPOINTS_PER_SLICE,
  SERVICE_NAME_LABEL,
  TRIGGER_TIME_ANNOTATION,
  type Endpoint,
  type EndpointPort,
  type EndpointSliceObject,
  type ServiceObject,
} from '../kube/types.js';
import type { MetadataFactory } from './metadata.js';

export function readyEndpoint(address: string, nodeName: string, zone: string): Endpoint {
  return { addresses: [address], conditions: { ready: true, serving: true, terminating: false }, nodeName, zone };
}

/** One slice of `service`, named the way the EndpointSlice controller names them (`<service>-<suffix>`). */
export function buildEndpointSlice(
  service: ServiceObject,
  ports: readonly EndpointPort[],
  endpoints: readonly Endpoint[],
  meta: MetadataFactory,
  triggerTime: string,
  usedNames: ReadonlySet<string> = new Set(),
): EndpointSliceObject {
  if (endpoints.length > MAX_ENDPOINTS_PER_SLICE) {
    throw new RangeError(`a slice holds at most ${MAX_ENDPOINTS_PER_SLICE} endpoints, got ${endpoints.length}`);
  }
  const serviceName = service.metadata.name;
  let name: string;
  do name = `${serviceName}-${meta.nameSuffix()}`;
  while (usedNames.has(name));
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name,
      generateName: `${serviceName}-`,
      ...(service.metadata.namespace === undefined ? {} : { namespace: service.metadata.namespace }),
      uid: meta.uid(),
      resourceVersion: meta.nextResourceVersion(),
      generation: 1,
      creationTimestamp: meta.createdAt,
      labels: {
        [MANAGED_BY_LABEL]: ENDPOINTSLICE_CONTROLLER,
        [SERVICE_NAME_LABEL]: serviceName,
      },
      annotations: { [TRIGGER_TIME_ANNOTATION]: triggerTime },
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'Service',
          name: serviceName,
          uid: service.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    addressType: 'IPv4',
    endpoints,
    ports,
  };
}

/** All slices of `service`: endpoints in order, cut every 100; a Service without endpoints keeps one empty slice. */
export function buildEndpointSlices(
  service: ServiceObject,
  ports: readonly EndpointPort[],
  endpoints: readonly Endpoint[],
  meta: MetadataFactory,
  triggerTime: string,
): EndpointSliceObject[] {
  const slices: EndpointSliceObject[] = [];
  const names = new Set<string>();
  for (let start = 0; start === 0 || start < endpoints.length; start += MAX_ENDPOINTS_PER_SLICE) {
    const slice = buildEndpointSlice(
      service,
      ports,
      endpoints.slice(start, start + MAX_ENDPOINTS_PER_SLICE),
      meta,
      triggerTime,
      names,
    );
    names.add(slice.metadata.name);
    slices.push(slice);
  }
  return slices;
}
