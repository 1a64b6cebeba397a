/**
 * GlobalSnapshot -> kpng.global.v1 bytes. Model objects are immutable and the global model keeps
 * unchanged ones identical between revisions, so each is encoded once and cached by identity.
 */
import { TurnBudget } from '@kpng/kit';
import type { GlobalSnapshot } from '../../model/global-model.js';
import type {
  EndpointModel,
  EndpointSliceModel,
  NodeModel,
  ServiceCIDRModel,
  ServiceModel,
} from '../../model/types.js';
import { writeChanges } from './changes.js';
import { FAMILY_WIRE, PROTOCOL_WIRE, SERVICE_TYPE_WIRE, TRAFFIC_POLICY_WIRE } from './enums.js';
import { assembleStateResponse } from './envelope.js';
import type { Delivery } from '../hub.js';
import { ProtoWriter } from './wire/writer.js';

const itemWriter = new ProtoWriter();
const headWriter = new ProtoWriter(4096);

function cachedEncoder<T extends object>(write: (w: ProtoWriter, item: T) => void): (item: T) => Buffer {
  const cache = new WeakMap<T, Buffer>();
  return (item) => {
    let bytes = cache.get(item);
    if (!bytes) {
      itemWriter.reset();
      write(itemWriter, item);
      bytes = itemWriter.finish();
      cache.set(item, bytes);
    }
    return bytes;
  };
}

export const encodeGlobalService = cachedEncoder(writeService);
export const encodeEndpointSlice = cachedEncoder(writeSlice);
export const encodeGlobalNode = cachedEncoder(writeNode);
export const encodeServiceCIDR = cachedEncoder(writeServiceCIDR);

/**
 * Encodes (and caches) the objects of `snapshot` not encoded yet, yielding to the event loop once a
 * turn's budget is used, so that `encodeGlobalStateResponse` of it is then a concatenation.
 */
export async function prepareGlobalState(snapshot: GlobalSnapshot, budget = new TurnBudget(10)): Promise<void> {
  const lists = [
    [snapshot.services, encodeGlobalService],
    [snapshot.endpointSlices, encodeEndpointSlice],
    [snapshot.nodes, encodeGlobalNode],
    [snapshot.serviceCIDRs, encodeServiceCIDR],
  ] as const;
  for (const [items, encode] of lists) {
    for (const item of items) {
      (encode as (item: object) => Buffer)(item);
      if (budget.due()) await budget.yield();
    }
  }
}

/** A complete `GlobalWatchResponse{state}` for one client. */
export function encodeGlobalStateResponse(d: Delivery<GlobalSnapshot>): Buffer {
  const w = headWriter;
  w.reset();
  w.string(1, d.instanceId);
  w.uint(2, d.revision);
  writeChanges(w, 3, d.changes, d.full);
  w.uint(7, d.state.revision);
  return assembleStateResponse(w, [
    { field: 4, items: d.state.services.map(encodeGlobalService) },
    { field: 5, items: d.state.endpointSlices.map(encodeEndpointSlice) },
    { field: 6, items: d.state.nodes.map(encodeGlobalNode) },
    { field: 8, items: d.state.serviceCIDRs.map(encodeServiceCIDR) },
  ]);
}

function writeService(w: ProtoWriter, s: ServiceModel): void {
  w.string(1, s.namespace); // namespace and name first: the client's decode cache keys on them
  w.string(2, s.name);
  w.uint(3, SERVICE_TYPE_WIRE[s.type]);
  w.strings(4, s.clusterIPs);
  w.strings(5, s.externalIPs);
  w.strings(6, s.loadBalancerIPs);
  w.strings(7, s.loadBalancerSourceRanges);
  for (const p of s.ports) {
    const mark = w.fork(8);
    w.string(1, p.name);
    w.uint(2, PROTOCOL_WIRE[p.protocol]);
    w.uint(3, p.port);
    w.uint(4, p.nodePort);
    // oneof members keep their presence: a target port of 0 is still written.
    if (typeof p.targetPort === 'number') {
      w.tag(5, 0);
      w.varint(p.targetPort);
    } else {
      w.stringAlways(6, p.targetPort);
    }
    w.join(mark);
  }
  if (s.sessionAffinity.type === 'ClientIP') {
    const mark = w.fork(9);
    w.uint(1, s.sessionAffinity.timeoutSeconds);
    w.join(mark);
  }
  w.uint(10, TRAFFIC_POLICY_WIRE[s.externalTrafficPolicy]);
  w.uint(11, TRAFFIC_POLICY_WIRE[s.internalTrafficPolicy]);
  w.uint(12, s.healthCheckNodePort);
  if (s.trafficDistribution !== undefined) w.stringAlways(13, s.trafficDistribution);
  if (s.preserveDestination === true) w.bool(14, true);
}

function writeSlice(w: ProtoWriter, s: EndpointSliceModel): void {
  w.string(1, s.namespace);
  w.string(2, s.name);
  w.string(3, s.serviceName);
  w.uint(4, FAMILY_WIRE[s.addressType]);
  for (const p of s.ports) {
    const mark = w.fork(5);
    w.string(1, p.name);
    w.uint(2, PROTOCOL_WIRE[p.protocol]);
    w.uint(3, p.port);
    w.join(mark);
  }
  for (const ep of s.endpoints) writeEndpoint(w, ep);
}

function writeEndpoint(w: ProtoWriter, ep: EndpointModel): void {
  const mark = w.fork(6);
  w.string(1, ep.address);
  w.bool(2, ep.ready);
  w.bool(3, ep.serving);
  w.bool(4, ep.terminating);
  if (ep.nodeName !== undefined) w.stringAlways(5, ep.nodeName);
  if (ep.zone !== undefined) w.stringAlways(6, ep.zone);
  if (ep.zoneHints !== undefined) writeHints(w, 7, ep.zoneHints);
  if (ep.nodeHints !== undefined) writeHints(w, 8, ep.nodeHints);
  w.join(mark);
}

function writeHints(w: ProtoWriter, field: number, names: readonly string[]): void {
  const mark = w.fork(field);
  w.strings(1, names);
  w.join(mark);
}

function writeNode(w: ProtoWriter, n: NodeModel): void {
  w.string(1, n.name);
  for (const [k, v] of Object.entries(n.labels)) {
    const entry = w.fork(2);
    w.string(1, k);
    w.string(2, v);
    w.join(entry);
  }
  w.strings(3, n.podCIDRs);
  w.strings(4, n.addresses);
  w.bool(5, n.eligible);
}

function writeServiceCIDR(w: ProtoWriter, c: ServiceCIDRModel): void {
  w.string(1, c.name);
  w.strings(2, c.cidrs);
}
