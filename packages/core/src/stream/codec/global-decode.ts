/** kpng.global.v1 bytes -> GlobalSnapshot, reusing unchanged objects through DecodedItemCaches. */
import { runSteps, runStepsYielding, TurnBudget } from '@kpng/kit';
import type { GlobalSnapshot } from '../../model/global-model.js';
import type {
  EndpointModel,
  EndpointSliceModel,
  EndpointSlicePort,
  NodeModel,
  ServiceCIDRModel,
  ServiceModel,
  ServicePortSpec,
  SessionAffinity,
} from '../../model/types.js';
import { NO_CHANGES_MESSAGE, readChanges, type DecodedChanges } from './changes.js';
import { familyFromWire, protocolFromWire, serviceTypeFromWire, trafficPolicyFromWire } from './enums.js';
import { readAffinity, readMapEntry } from './shared-decode.js';
import type { Delivery } from '../hub.js';
import { bulkCopy, DecodedItemCache } from './item-cache.js';
import { ProtoReader } from './wire/reader.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** One cache per kind of item: keep it for the life of a watch. */
export class GlobalDecodeCache {
  readonly services = new DecodedItemCache<ServiceModel>();
  readonly slices = new DecodedItemCache<EndpointSliceModel>();
  readonly nodes = new DecodedItemCache<NodeModel>();

  begin(buf: Buffer, start: number, end: number): void {
    const caches = [this.services, this.slices, this.nodes];
    const bulk = caches.some((c) => c.isEmpty) ? bulkCopy(buf, start, end) : undefined;
    for (const c of caches) c.begin(bulk);
  }

  commit(): void {
    this.services.commit();
    this.slices.commit();
    this.nodes.commit();
  }

  discard(): void {
    this.services.discard();
    this.slices.discard();
    this.nodes.discard();
  }
}

export function decodeGlobalState(
  buf: Buffer,
  start: number,
  end: number,
  cache?: GlobalDecodeCache,
): Delivery<GlobalSnapshot> {
  return runSteps(decodeSteps(buf, start, end, cache));
}

/** `decodeGlobalState` yielding to the event loop once a turn's budget is used (between objects). */
export function decodeGlobalStateInTurns(
  buf: Buffer,
  start: number,
  end: number,
  cache: GlobalDecodeCache,
  budget = new TurnBudget(10),
): Promise<Delivery<GlobalSnapshot>> {
  return runStepsYielding(decodeSteps(buf, start, end, cache), budget);
}

/** The decode, one step per object read. */
function* decodeSteps(
  buf: Buffer,
  start: number,
  end: number,
  cache: GlobalDecodeCache | undefined,
): Generator<void, Delivery<GlobalSnapshot>> {
  const r = new ProtoReader(buf, start, end);
  let instanceId = '';
  let revision = 0;
  let modelRevision = 0;
  let changes: DecodedChanges = NO_CHANGES_MESSAGE;
  const services: ServiceModel[] = [];
  const endpointSlices: EndpointSliceModel[] = [];
  const nodes: NodeModel[] = [];
  const serviceCIDRs: ServiceCIDRModel[] = [];
  cache?.begin(buf, start, end);
  try {
    while (r.pos < end) {
      const tag = r.varint();
      switch (tag) {
        case (1 << 3) | 2:
          instanceId = r.string();
          break;
        case (2 << 3) | 0:
          revision = r.varint();
          break;
        case (3 << 3) | 2:
          changes = readChanges(r, r.delimitedEnd());
          break;
        case (4 << 3) | 2:
          services.push(readItem(r, cache?.services, 2, readService));
          yield;
          break;
        case (5 << 3) | 2:
          endpointSlices.push(readItem(r, cache?.slices, 2, readSlice));
          yield;
          break;
        case (6 << 3) | 2:
          nodes.push(readItem(r, cache?.nodes, 1, readNode));
          yield;
          break;
        case (7 << 3) | 0:
          modelRevision = r.varint();
          break;
        case (8 << 3) | 2: {
          // Few and small: decoded each time, no cache.
          const itemEnd = r.delimitedEnd();
          serviceCIDRs.push(readServiceCIDR(r, itemEnd));
          break;
        }
        default:
          r.skip(tag & 7);
      }
    }
  } catch (e) {
    cache?.discard();
    throw e;
  }
  cache?.commit();
  const state: GlobalSnapshot = { revision: modelRevision, services, endpointSlices, nodes, serviceCIDRs };
  return { state, instanceId, revision, changes: changes.changes, full: changes.full };
}

function readItem<T>(
  r: ProtoReader,
  cache: DecodedItemCache<T> | undefined,
  identityFields: 1 | 2,
  read: (r: ProtoReader, end: number) => T,
): T {
  const end = r.delimitedEnd();
  const start = r.pos;
  const item = cache
    ? cache.get(peekIdentity(r, end, identityFields), r.buf, start, end, () => read(r, end))
    : read(r, end);
  r.pos = end;
  return item;
}

/** `namespace/name` (or `name`) from the leading fields 1 and 2, without moving the reader. */
function peekIdentity(r: ProtoReader, end: number, fields: 1 | 2): string | undefined {
  const at = r.pos;
  let namespace = '';
  let name: string | undefined;
  if (r.pos < end && r.buf[r.pos] === ((1 << 3) | 2)) {
    r.pos++;
    namespace = r.string();
    if (fields === 1) name = namespace;
  }
  if (fields === 2 && r.pos < end && r.buf[r.pos] === ((2 << 3) | 2)) {
    r.pos++;
    name = `${namespace}/${r.string()}`;
  }
  r.pos = at;
  return name;
}

const NO_AFFINITY: SessionAffinity = { type: 'None' };

function readService(r: ProtoReader, end: number): ServiceModel {
  let namespace = '';
  let name = '';
  let type = 0;
  const clusterIPs: string[] = [];
  const externalIPs: string[] = [];
  const loadBalancerIPs: string[] = [];
  const loadBalancerSourceRanges: string[] = [];
  const ports: ServicePortSpec[] = [];
  let sessionAffinity = NO_AFFINITY;
  let externalTrafficPolicy = 0;
  let internalTrafficPolicy = 0;
  let healthCheckNodePort = 0;
  let trafficDistribution: string | undefined;
  let preserveDestination = false;
  while (r.pos < end) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | 2:
        namespace = r.string();
        break;
      case (2 << 3) | 2:
        name = r.string();
        break;
      case (3 << 3) | 0:
        type = r.varint();
        break;
      case (4 << 3) | 2:
        clusterIPs.push(r.string());
        break;
      case (5 << 3) | 2:
        externalIPs.push(r.string());
        break;
      case (6 << 3) | 2:
        loadBalancerIPs.push(r.string());
        break;
      case (7 << 3) | 2:
        loadBalancerSourceRanges.push(r.string());
        break;
      case (8 << 3) | 2:
        ports.push(readServicePort(r, r.delimitedEnd()));
        break;
      case (9 << 3) | 2:
        sessionAffinity = readAffinity(r, r.delimitedEnd());
        break;
      case (10 << 3) | 0:
        externalTrafficPolicy = r.varint();
        break;
      case (11 << 3) | 0:
        internalTrafficPolicy = r.varint();
        break;
      case (12 << 3) | 0:
        healthCheckNodePort = r.varint();
        break;
      case (13 << 3) | 2:
        trafficDistribution = r.string();
        break;
      case (14 << 3) | 0:
        preserveDestination = r.bool();
        break;
      default:
        r.skip(tag & 7);
    }
  }
  r.finish(end);
  const svc: Mutable<ServiceModel> = {
    namespace,
    name,
    type: serviceTypeFromWire(type),
    clusterIPs,
    externalIPs,
    loadBalancerIPs,
    loadBalancerSourceRanges,
    ports,
    sessionAffinity,
    externalTrafficPolicy: trafficPolicyFromWire(externalTrafficPolicy),
    internalTrafficPolicy: trafficPolicyFromWire(internalTrafficPolicy),
    healthCheckNodePort,
  };
  if (trafficDistribution !== undefined) svc.trafficDistribution = trafficDistribution;
  if (preserveDestination) svc.preserveDestination = true;
  return svc;
}

function readServicePort(r: ProtoReader, end: number): ServicePortSpec {
  let name = '';
  let protocol = 0;
  let port = 0;
  let nodePort = 0;
  let targetPort: number | string = 0;
  while (r.pos < end) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | 2:
        name = r.string();
        break;
      case (2 << 3) | 0:
        protocol = r.varint();
        break;
      case (3 << 3) | 0:
        port = r.varint();
        break;
      case (4 << 3) | 0:
        nodePort = r.varint();
        break;
      case (5 << 3) | 0:
        targetPort = r.varint();
        break;
      case (6 << 3) | 2:
        targetPort = r.string();
        break;
      default:
        r.skip(tag & 7);
    }
  }
  r.finish(end);
  return { name, protocol: protocolFromWire(protocol), port, nodePort, targetPort };
}

function readSlice(r: ProtoReader, end: number): EndpointSliceModel {
  let namespace = '';
  let name = '';
  let serviceName = '';
  let addressType = 0;
  const ports: EndpointSlicePort[] = [];
  const endpoints: EndpointModel[] = [];
  while (r.pos < end) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | 2:
        namespace = r.string();
        break;
      case (2 << 3) | 2:
        name = r.string();
        break;
      case (3 << 3) | 2:
        serviceName = r.string();
        break;
      case (4 << 3) | 0:
        addressType = r.varint();
        break;
      case (5 << 3) | 2:
        ports.push(readSlicePort(r, r.delimitedEnd()));
        break;
      case (6 << 3) | 2:
        endpoints.push(readEndpoint(r, r.delimitedEnd()));
        break;
      default:
        r.skip(tag & 7);
    }
  }
  r.finish(end);
  return { namespace, name, serviceName, addressType: familyFromWire(addressType), ports, endpoints };
}

function readSlicePort(r: ProtoReader, end: number): EndpointSlicePort {
  let name = '';
  let protocol = 0;
  let port = 0;
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === ((1 << 3) | 2)) name = r.string();
    else if (tag === ((2 << 3) | 0)) protocol = r.varint();
    else if (tag === ((3 << 3) | 0)) port = r.varint();
    else r.skip(tag & 7);
  }
  r.finish(end);
  return { name, protocol: protocolFromWire(protocol), port };
}

function readEndpoint(r: ProtoReader, end: number): EndpointModel {
  let address = '';
  let ready = false;
  let serving = false;
  let terminating = false;
  let nodeName: string | undefined;
  let zone: string | undefined;
  let zoneHints: string[] | undefined;
  let nodeHints: string[] | undefined;
  while (r.pos < end) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | 2:
        address = r.string();
        break;
      case (2 << 3) | 0:
        ready = r.bool();
        break;
      case (3 << 3) | 0:
        serving = r.bool();
        break;
      case (4 << 3) | 0:
        terminating = r.bool();
        break;
      case (5 << 3) | 2:
        nodeName = r.string();
        break;
      case (6 << 3) | 2:
        zone = r.string();
        break;
      case (7 << 3) | 2:
        zoneHints = readHints(r, r.delimitedEnd());
        break;
      case (8 << 3) | 2:
        nodeHints = readHints(r, r.delimitedEnd());
        break;
      default:
        r.skip(tag & 7);
    }
  }
  r.finish(end);
  const ep: Mutable<EndpointModel> = { address, ready, serving, terminating };
  if (nodeName !== undefined) ep.nodeName = nodeName;
  if (zone !== undefined) ep.zone = zone;
  if (zoneHints !== undefined) ep.zoneHints = zoneHints;
  if (nodeHints !== undefined) ep.nodeHints = nodeHints;
  return ep;
}

function readHints(r: ProtoReader, end: number): string[] {
  const names: string[] = [];
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === ((1 << 3) | 2)) names.push(r.string());
    else r.skip(tag & 7);
  }
  r.finish(end);
  return names;
}

function readNode(r: ProtoReader, end: number): NodeModel {
  let name = '';
  const labels: Record<string, string> = {};
  const podCIDRs: string[] = [];
  const addresses: string[] = [];
  let eligible = false;
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === ((1 << 3) | 2)) name = r.string();
    else if (tag === ((2 << 3) | 2)) {
      const [k, v] = readMapEntry(r, r.delimitedEnd());
      labels[k] = v;
    } else if (tag === ((3 << 3) | 2)) podCIDRs.push(r.string());
    else if (tag === ((4 << 3) | 2)) addresses.push(r.string());
    else if (tag === ((5 << 3) | 0)) eligible = r.bool();
    else r.skip(tag & 7);
  }
  r.finish(end);
  return { name, labels, podCIDRs, addresses, eligible };
}

function readServiceCIDR(r: ProtoReader, end: number): ServiceCIDRModel {
  let name = '';
  const cidrs: string[] = [];
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === ((1 << 3) | 2)) name = r.string();
    else if (tag === ((2 << 3) | 2)) cidrs.push(r.string());
    else r.skip(tag & 7);
  }
  r.finish(end);
  return { name, cidrs };
}
