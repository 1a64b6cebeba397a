import { type ModelEvent, type NodeName, type ObjectKind, serviceKey, sliceKey } from '../../model/types.js';
import {
  convertEndpointSlice,
  convertNode,
  convertService,
  convertServiceCIDR,
  type Converted,
} from '../convert/index.js';
import { convertNamespace, convertNetworkPolicy, convertPod } from '../../policy/convert.js';
import { podKey, policyKey } from '../../policy/types.js';

export type UpsertEvent = Extract<ModelEvent, { op: 'upsert' }>;

/**
 * What an informer needs to know about one kind to turn raw objects into events: the model's upsert
 * events here (`U`), the raw object with its arrival for the test clients.
 */
export interface KindAdapter<U = UpsertEvent> {
  readonly kind: ObjectKind;
  /** The model key of a raw object, from its metadata alone (also for objects that fail conversion). */
  keyOf(obj: unknown): string;
  /** The upsert event, null when the proxy legitimately ignores the object, or the problems found. */
  toUpsert(obj: unknown): Converted<U | null>;
}

function metadataOf(obj: unknown): { namespace: string; name: string } {
  const meta = (obj as { metadata?: { namespace?: unknown; name?: unknown } } | null)?.metadata;
  return {
    namespace: typeof meta?.namespace === 'string' ? meta.namespace : '',
    name: typeof meta?.name === 'string' ? meta.name : '',
  };
}

function mapValue<T, U>(result: Converted<T>, fn: (value: T) => U): Converted<U> {
  return result.ok ? { ok: true, value: fn(result.value) } : result;
}

export const serviceAdapter: KindAdapter = {
  kind: 'Service',
  keyOf: (obj) => {
    const { namespace, name } = metadataOf(obj);
    return serviceKey(namespace, name);
  },
  toUpsert: (obj) =>
    mapValue(convertService(obj), (svc) =>
      svc === null ? null : { kind: 'Service', op: 'upsert', key: serviceKey(svc.namespace, svc.name), object: svc },
    ),
};

export const endpointSliceAdapter: KindAdapter = {
  kind: 'EndpointSlice',
  keyOf: (obj) => {
    const { namespace, name } = metadataOf(obj);
    return sliceKey(namespace, name);
  },
  toUpsert: (obj) =>
    mapValue(convertEndpointSlice(obj), ({ slice, triggerTime }) =>
      slice === null
        ? null
        : {
            kind: 'EndpointSlice',
            op: 'upsert',
            key: sliceKey(slice.namespace, slice.name),
            object: slice,
            ...(triggerTime !== undefined ? { triggerTime } : {}),
          },
    ),
};

export const nodeAdapter: KindAdapter = {
  kind: 'Node',
  keyOf: (obj) => metadataOf(obj).name,
  toUpsert: (obj) =>
    mapValue(convertNode(obj), (node) => ({ kind: 'Node', op: 'upsert', key: node.name as NodeName, object: node })),
};

export const serviceCIDRAdapter: KindAdapter = {
  kind: 'ServiceCIDR',
  keyOf: (obj) => metadataOf(obj).name,
  toUpsert: (obj) =>
    mapValue(convertServiceCIDR(obj), (c) => ({ kind: 'ServiceCIDR', op: 'upsert', key: c.name, object: c })),
};

// Watched only for NetworkPolicy enforcement (`KubeSourceOptions.policy`).
export const podAdapter: KindAdapter = {
  kind: 'Pod',
  keyOf: (obj) => {
    const { namespace, name } = metadataOf(obj);
    return podKey(namespace, name);
  },
  toUpsert: (obj) =>
    mapValue(convertPod(obj), (pod) => ({
      kind: 'Pod',
      op: 'upsert',
      key: podKey(pod.namespace, pod.name),
      object: pod,
    })),
};

export const namespaceAdapter: KindAdapter = {
  kind: 'Namespace',
  keyOf: (obj) => metadataOf(obj).name,
  toUpsert: (obj) =>
    mapValue(convertNamespace(obj), (ns) => ({ kind: 'Namespace', op: 'upsert', key: ns.name, object: ns })),
};

export const networkPolicyAdapter: KindAdapter = {
  kind: 'NetworkPolicy',
  keyOf: (obj) => {
    const { namespace, name } = metadataOf(obj);
    return policyKey(namespace, name);
  },
  toUpsert: (obj) =>
    mapValue(convertNetworkPolicy(obj), (policy) => ({
      kind: 'NetworkPolicy',
      op: 'upsert',
      key: policyKey(policy.namespace, policy.name),
      object: policy,
    })),
};

/** The deletion matching an accepted upsert. */
export function deletionOf(upsert: UpsertEvent): ModelEvent {
  switch (upsert.kind) {
    case 'Service':
      return { kind: 'Service', op: 'delete', key: upsert.key };
    case 'EndpointSlice':
      return { kind: 'EndpointSlice', op: 'delete', key: upsert.key };
    case 'Node':
      return { kind: 'Node', op: 'delete', key: upsert.key };
    case 'ServiceCIDR':
      return { kind: 'ServiceCIDR', op: 'delete', key: upsert.key };
    case 'Pod':
      return { kind: 'Pod', op: 'delete', key: upsert.key };
    case 'Namespace':
      return { kind: 'Namespace', op: 'delete', key: upsert.key };
    case 'NetworkPolicy':
      return { kind: 'NetworkPolicy', op: 'delete', key: upsert.key };
  }
}
