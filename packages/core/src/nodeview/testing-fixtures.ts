/**
 * Builders for model objects and an in-memory ModelReader, for tests of anything downstream of the
 * model. Every builder takes a partial override, so a test states only what it is about.
 * Addresses follow the lab plan: pods 198.18.0.0/16, Services 198.19.0.0/16, nodes
 * 198.18.255.0/24, external/LB 203.0.113.0/24, IPv6 under 2001:db8::/32.
 */
import type { ModelReader } from '../model/reader.js';
import {
  serviceKey,
  sliceKey,
  type EndpointModel,
  type EndpointSliceModel,
  type EndpointSlicePort,
  type IPFamily,
  type NodeModel,
  type NodeName,
  type ServiceKey,
  type ServiceModel,
  type ServicePortSpec,
  type SliceKey,
} from '../model/types.js';
import { familyOf } from './ip.js';
import { ZONE_LABEL, type NodeContext } from './node-context.js';

export const THIS_NODE = 'node-a' as NodeName;
export const OTHER_NODE = 'node-b';

export function nodeName(name: string): NodeName {
  return name as NodeName;
}

export function aPort(overrides: Partial<ServicePortSpec> = {}): ServicePortSpec {
  return { name: '', protocol: 'TCP', port: 80, nodePort: 0, targetPort: 8080, ...overrides };
}

/** A single-stack IPv4 ClusterIP Service `default/web` on TCP 80, Cluster policies, no affinity. */
export function aService(overrides: Partial<ServiceModel> = {}): ServiceModel {
  return {
    namespace: 'default',
    name: 'web',
    type: 'ClusterIP',
    clusterIPs: ['198.19.0.1'],
    externalIPs: [],
    loadBalancerIPs: [],
    loadBalancerSourceRanges: [],
    ports: [aPort()],
    sessionAffinity: { type: 'None' },
    externalTrafficPolicy: 'Cluster',
    internalTrafficPolicy: 'Cluster',
    healthCheckNodePort: 0,
    ...overrides,
  };
}

/** A ready, serving, non-terminating endpoint; `nodeName` only when given. */
export function anEndpoint(address: string, overrides: Partial<EndpointModel> = {}): EndpointModel {
  return { address, ready: true, serving: true, terminating: false, ...overrides };
}

/** A ready endpoint running on `node`. */
export function readyOn(node: string, address: string, overrides: Partial<EndpointModel> = {}): EndpointModel {
  return anEndpoint(address, { nodeName: node, ...overrides });
}

/** A terminating endpoint that still serves (the fallback kind) on `node`. */
export function terminatingOn(node: string, address: string, overrides: Partial<EndpointModel> = {}): EndpointModel {
  return anEndpoint(address, { nodeName: node, ready: false, serving: true, terminating: true, ...overrides });
}

/** Not ready, not terminating (e.g. failing its readiness probe) on `node`. */
export function unreadyOn(node: string, address: string, overrides: Partial<EndpointModel> = {}): EndpointModel {
  return anEndpoint(address, { nodeName: node, ready: false, serving: false, ...overrides });
}

export interface SliceSpec {
  /** The Service this slice belongs to (`kubernetes.io/service-name`); default `web`. */
  readonly service?: string;
  readonly namespace?: string;
  /** Default `<service>-<family>`, e.g. `web-ipv4`. */
  readonly name?: string;
  /** Default: the family of the first endpoint, IPv4 when there is none. */
  readonly addressType?: IPFamily;
  /** Default: one unnamed TCP port 8080. */
  readonly ports?: readonly EndpointSlicePort[];
  readonly endpoints?: readonly EndpointModel[];
}

export function aSlice(spec: SliceSpec = {}): EndpointSliceModel {
  const endpoints = spec.endpoints ?? [];
  const addressType = spec.addressType ?? (endpoints[0] ? familyOf(endpoints[0].address) : 'IPv4');
  const service = spec.service ?? 'web';
  return {
    namespace: spec.namespace ?? 'default',
    name: spec.name ?? `${service}-${addressType.toLowerCase()}`,
    serviceName: service,
    addressType,
    ports: spec.ports ?? [slicePort()],
    endpoints,
  };
}

export function slicePort(port = 8080, name = '', protocol: EndpointSlicePort['protocol'] = 'TCP'): EndpointSlicePort {
  return { name, protocol, port };
}

export interface NodeSpec {
  readonly zone?: string;
  readonly addresses?: readonly string[];
  readonly labels?: Readonly<Record<string, string>>;
  readonly podCIDRs?: readonly string[];
  readonly eligible?: boolean;
}

export function aNode(name: string = THIS_NODE, spec: NodeSpec = {}): NodeModel {
  return {
    name,
    labels: { ...spec.labels, ...(spec.zone !== undefined ? { [ZONE_LABEL]: spec.zone } : {}) },
    podCIDRs: spec.podCIDRs ?? ['198.18.1.0/24'],
    addresses: spec.addresses ?? ['198.18.255.1'],
    eligible: spec.eligible ?? true,
  };
}

export function aNodeContext(spec: Partial<NodeContext> = {}): NodeContext {
  return { name: THIS_NODE, addresses: ['198.18.255.1'], ...spec };
}

/** A ModelReader over plain maps; every mutation bumps the revision. */
export class InMemoryModel implements ModelReader {
  #revision = 0;
  readonly #services = new Map<ServiceKey, ServiceModel>();
  readonly #slices = new Map<ServiceKey, Map<SliceKey, EndpointSliceModel>>();
  readonly #nodes = new Map<NodeName, NodeModel>();

  get revision(): number {
    return this.#revision;
  }

  service(key: ServiceKey): ServiceModel | undefined {
    return this.#services.get(key);
  }

  slicesOf(key: ServiceKey): Iterable<EndpointSliceModel> {
    return this.#slices.get(key)?.values() ?? [];
  }

  node(name: NodeName): NodeModel | undefined {
    return this.#nodes.get(name);
  }

  serviceKeys(): Iterable<ServiceKey> {
    return this.#services.keys();
  }

  /** Upserts; returns the Service's key, handy for `changed` sets. */
  setService(svc: ServiceModel): ServiceKey {
    const key = serviceKey(svc.namespace, svc.name);
    this.#services.set(key, svc);
    this.#revision++;
    return key;
  }

  deleteService(key: ServiceKey): void {
    this.#services.delete(key);
    this.#revision++;
  }

  /** Upserts; returns the key of the Service the slice belongs to. */
  setSlice(slice: EndpointSliceModel): ServiceKey {
    const owner = serviceKey(slice.namespace, slice.serviceName);
    let slices = this.#slices.get(owner);
    if (slices === undefined) this.#slices.set(owner, (slices = new Map()));
    slices.set(sliceKey(slice.namespace, slice.name), slice);
    this.#revision++;
    return owner;
  }

  deleteSlice(slice: Pick<EndpointSliceModel, 'namespace' | 'name' | 'serviceName'>): ServiceKey {
    const owner = serviceKey(slice.namespace, slice.serviceName);
    this.#slices.get(owner)?.delete(sliceKey(slice.namespace, slice.name));
    this.#revision++;
    return owner;
  }

  setNode(node: NodeModel): void {
    this.#nodes.set(node.name as NodeName, node);
    this.#revision++;
  }

  deleteNode(name: string): void {
    this.#nodes.delete(name as NodeName);
    this.#revision++;
  }
}

export interface ScaleShape {
  readonly services: number;
  readonly endpointsPerService: number;
  /** Nodes the endpoints are spread over, round robin; `THIS_NODE` is the first. Default 100. */
  readonly nodes?: number;
}

/**
 * `services` ClusterIP Services `scale/svc-<i>` (198.19.0.0/16), each with one slice of ready
 * endpoints. Pods stay in the test plan's 198.18.0.0/16; past 65,536 endpoints the addresses repeat
 * across Services (as pods backing several Services do), never within one.
 */
export function scaleModel(shape: ScaleShape): InMemoryModel {
  const model = new InMemoryModel();
  const nodes = shape.nodes ?? 100;
  model.setNode(aNode(THIS_NODE));
  let pod = 0;
  for (let i = 0; i < shape.services; i++) {
    const name = `svc-${i}`;
    model.setService(aService({ namespace: 'scale', name, clusterIPs: [`198.19.${(i >> 8) & 255}.${i & 255}`] }));
    const endpoints: EndpointModel[] = [];
    for (let e = 0; e < shape.endpointsPerService; e++, pod++) {
      endpoints.push(readyOn(pod % nodes === 0 ? THIS_NODE : `node-${pod % nodes}`, podIP(pod)));
    }
    model.setSlice(aSlice({ namespace: 'scale', service: name, endpoints }));
  }
  return model;
}

function podIP(index: number): string {
  return `198.18.${(index >> 8) & 255}.${index & 255}`;
}
