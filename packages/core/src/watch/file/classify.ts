import {
  type NodeName,
  type ServiceObjectKind,
  type ServiceKey,
  type SliceKey,
  serviceKey,
  sliceKey,
} from '../../model/types.js';
import { isJsonObject } from '../convert/fields.js';
import type { ManifestObject } from './parse-manifest.js';

/** The API versions read for each kind; anything else (a Knative `Service`, say) is not ours. */
const API_VERSIONS: Readonly<Record<ServiceObjectKind, string>> = {
  Service: 'v1',
  EndpointSlice: 'discovery.k8s.io/v1',
  Node: 'v1',
  ServiceCIDR: 'networking.k8s.io/v1',
};

/**
 * The default informer label selector of kube-proxy (semantics 2.1): Services owned by another
 * proxy, and EndpointSlices of headless Services, are not delivered.
 */
const EXCLUDING_LABELS = ['service.kubernetes.io/service-proxy-name', 'service.kubernetes.io/headless'];

export type Classified = { readonly kind: ServiceObjectKind } | { readonly kind: undefined; readonly why: string };

function textField(obj: unknown, key: string): string | undefined {
  return isJsonObject(obj) && typeof obj[key] === 'string' ? obj[key] : undefined;
}

/** Which model kind a manifest object is, or why it is not one we read. */
export function classify(found: ManifestObject): Classified {
  const kind = textField(found.object, 'kind') ?? found.implied?.kind;
  const apiVersion = textField(found.object, 'apiVersion') ?? found.implied?.apiVersion;
  if (kind === undefined) return { kind: undefined, why: 'no kind' };
  if (!Object.hasOwn(API_VERSIONS, kind)) return { kind: undefined, why: `kind ${kind} is not read` };
  const modelKind = kind as ServiceObjectKind;
  // A hand-written manifest may leave apiVersion out; a different one is another API's object.
  if (apiVersion !== undefined && apiVersion !== API_VERSIONS[modelKind]) {
    return { kind: undefined, why: `${apiVersion} ${kind} is not read` };
  }
  return { kind: modelKind };
}

function labelsOf(obj: unknown): Readonly<Record<string, unknown>> {
  const metadata = isJsonObject(obj) ? obj['metadata'] : undefined;
  const labels = isJsonObject(metadata) ? metadata['labels'] : undefined;
  return isJsonObject(labels) ? labels : {};
}

/** The label that hides this object from the default proxy, if any. */
export function excludingLabel(kind: ServiceObjectKind, obj: unknown): string | undefined {
  if (kind === 'Node') return undefined;
  const labels = labelsOf(obj);
  return EXCLUDING_LABELS.find((label) => label in labels);
}

/**
 * The key an object would have, read straight from its raw metadata: how an invalid object is
 * matched with a valid version of it delivered earlier. Undefined when the metadata is unusable.
 */
export function rawKey(kind: ServiceObjectKind, obj: unknown): ServiceKey | SliceKey | NodeName | undefined {
  const metadata = isJsonObject(obj) ? obj['metadata'] : undefined;
  const name = textField(metadata, 'name');
  if (name === undefined) return undefined;
  if (kind === 'Node' || kind === 'ServiceCIDR') return name as NodeName; // cluster-scoped
  const namespace = textField(metadata, 'namespace') || 'default';
  return kind === 'Service' ? serviceKey(namespace, name) : sliceKey(namespace, name);
}
