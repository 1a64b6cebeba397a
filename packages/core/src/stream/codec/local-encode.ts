/**
 * NodeLocalState -> kpng.localnet.v1 bytes. Each LocalService is encoded once and cached by object
 * identity: the node viewer keeps unchanged LocalService objects identical between revisions, so a
 * new full state costs the encoding of the changed Services plus one concatenation.
 */
import { TurnBudget } from '@kpng/kit';
import { IP_FAMILIES } from '../../model/types.js';
import type { FamilyEndpoints, LocalEndpoint, LocalNode, LocalService, NodeLocalState } from '../../nodeview/types.js';
import { FAMILY_WIRE, PROTOCOL_WIRE, SERVICE_TYPE_WIRE } from './enums.js';
import { writeChanges } from './changes.js';
import { assembleStateResponse } from './envelope.js';
import { encodePeerGroup, encodePolicyPod, POLICY_FIELDS } from './local-policy.js';
import type { Delivery } from '../hub.js';
import { ProtoWriter } from './wire/writer.js';
import { localEndpointEqual } from '../../nodeview/equal.js';

const encodedServices = new WeakMap<LocalService, Buffer>();
const itemWriter = new ProtoWriter();
const headWriter = new ProtoWriter(4096);

/** The bytes of one `Service` message (without tag and length), cached per object. */
export function encodeLocalService(svc: LocalService): Buffer {
  let bytes = encodedServices.get(svc);
  if (!bytes) {
    itemWriter.reset();
    writeService(itemWriter, svc);
    bytes = itemWriter.finish();
    encodedServices.set(svc, bytes);
  }
  return bytes;
}

/**
 * Encodes (and caches) the Services of `state` not encoded yet, yielding to the event loop once a
 * turn's budget is used, so that `encodeLocalStateResponse` of it is then a concatenation: a new
 * client's first state (10,000 Services) is never one long turn of the server.
 */
export async function prepareLocalState(state: NodeLocalState, budget = new TurnBudget(10)): Promise<void> {
  for (const svc of state.services) {
    encodeLocalService(svc);
    if (budget.due()) await budget.yield();
  }
}

/** A complete `WatchResponse{state}` for one client. */
export function encodeLocalStateResponse(d: Delivery<NodeLocalState>): Buffer {
  const items = d.state.services.map(encodeLocalService);
  const w = headWriter;
  w.reset();
  w.string(1, d.instanceId);
  w.uint(2, d.revision);
  writeChanges(w, 3, d.changes, d.full);
  writeNode(w, 4, d.state.node);
  const policy = d.state.policy;
  if (policy === undefined) return assembleStateResponse(w, [{ field: 5, items }]);
  w.bool(POLICY_FIELDS.present, true);
  return assembleStateResponse(w, [
    { field: 5, items },
    { field: POLICY_FIELDS.pods, items: [...policy.pods.values()].map(encodePolicyPod) },
    { field: POLICY_FIELDS.groups, items: [...policy.groups].map(([key, group]) => encodePeerGroup(key, group)) },
  ]);
}

function writeNode(w: ProtoWriter, field: number, node: LocalNode): void {
  const mark = w.fork(field);
  w.string(1, node.name);
  for (const [k, v] of Object.entries(node.labels)) {
    const entry = w.fork(2);
    w.string(1, k);
    w.string(2, v);
    w.join(entry);
  }
  if (node.zone !== undefined) w.stringAlways(3, node.zone);
  w.strings(4, node.podCIDRs);
  w.strings(5, node.addresses);
  w.bool(6, node.eligible);
  w.strings(7, node.serviceCIDRs ?? []);
  w.join(mark);
}

function writeService(w: ProtoWriter, s: LocalService): void {
  w.string(1, s.key); // first on the wire: the client's decode cache keys on it
  w.string(2, s.namespace);
  w.string(3, s.name);
  w.uint(4, SERVICE_TYPE_WIRE[s.type]);
  for (const family of IP_FAMILIES) {
    const a = s.families[family];
    if (!a) continue;
    const mark = w.fork(5);
    w.uint(1, FAMILY_WIRE[family]);
    w.string(2, a.clusterIP);
    w.strings(3, a.externalIPs);
    w.strings(4, a.loadBalancerIPs);
    w.strings(5, a.loadBalancerSourceRanges);
    w.join(mark);
  }
  if (s.sessionAffinity.type === 'ClientIP') {
    const mark = w.fork(6);
    w.uint(1, s.sessionAffinity.timeoutSeconds);
    w.join(mark);
  }
  w.bool(7, s.externalPolicyLocal);
  w.bool(8, s.internalPolicyLocal);
  w.bool(9, s.externallyAccessible);
  w.uint(10, s.healthCheckNodePort);
  w.uint(11, s.localReadyEndpoints);
  for (const p of s.ports) {
    const mark = w.fork(12);
    w.string(1, p.key);
    w.string(2, p.name);
    w.uint(3, PROTOCOL_WIRE[p.protocol]);
    w.uint(4, p.port);
    w.uint(5, p.nodePort);
    for (const family of IP_FAMILIES) {
      const fe = p.endpoints[family];
      if (fe) writeFamilyEndpoints(w, FAMILY_WIRE[family], fe);
    }
    w.join(mark);
  }
  if (s.preserveDestination === true) w.bool(13, true);
}

function writeFamilyEndpoints(w: ProtoWriter, family: number, fe: FamilyEndpoints): void {
  const mark = w.fork(6);
  w.uint(1, family);
  // The lists come before the endpoint table they index: the table is built while they are
  // written, saving a pass. Protobuf decoders accept fields in any order.
  table.reset();
  writeIndexes(w, 3, fe.cluster);
  writeIndexes(w, 4, fe.local);
  writeIndexes(w, 5, fe.internal);
  writeIndexes(w, 6, fe.external);
  writeIndexes(w, 7, fe.allReachable);
  writeIndexes(w, 8, fe.serving);
  for (const ep of table.endpoints) {
    const m = w.fork(2);
    w.string(1, ep.ip);
    w.uint(2, ep.port);
    w.bool(3, ep.ready);
    w.bool(4, ep.serving);
    w.bool(5, ep.terminating);
    w.bool(6, ep.isLocal);
    if (ep.nodeName !== undefined) w.stringAlways(7, ep.nodeName);
    if (ep.zone !== undefined) w.stringAlways(8, ep.zone);
    w.join(m);
  }
  w.bool(9, fe.hasAnyEndpoints);
  w.bool(10, fe.externallyAccessible);
  w.bool(11, fe.externalPolicyLocal);
  w.join(mark);
}

function writeIndexes(w: ProtoWriter, field: number, list: readonly LocalEndpoint[]): void {
  if (list.length === 0) return;
  w.packed(field, table.indexesOf(list));
}

/**
 * Lists each distinct endpoint once: by identity (the node viewer shares endpoint objects between
 * lists, and often whole lists: `internal` is `cluster` or `local`), else by content for small
 * tables, so a view that copies objects still gets small messages without a quadratic cost on very
 * wide Services. Reused for every FamilyEndpoints (encoding is synchronous).
 */
class EndpointTable {
  readonly endpoints: LocalEndpoint[] = [];
  readonly #byObject = new Map<LocalEndpoint, number>();
  readonly #lists: { list: readonly LocalEndpoint[]; indexes: readonly number[] }[] = [];

  reset(): void {
    this.endpoints.length = 0;
    this.#byObject.clear();
    this.#lists.length = 0;
  }

  indexesOf(list: readonly LocalEndpoint[]): readonly number[] {
    for (const seen of this.#lists) if (seen.list === list) return seen.indexes;
    const indexes = list.map((ep) => this.#indexOf(ep));
    this.#lists.push({ list, indexes });
    return indexes;
  }

  #indexOf(ep: LocalEndpoint): number {
    const eps = this.endpoints;
    if (eps.length <= SMALL_TABLE) {
      // Small tables: a linear scan beats hashing.
      for (let i = 0; i < eps.length; i++) if (eps[i] === ep) return i;
      for (let i = 0; i < eps.length; i++) if (eps[i]!.ip === ep.ip && localEndpointEqual(eps[i]!, ep)) return i;
      eps.push(ep);
      if (eps.length > SMALL_TABLE) eps.forEach((e, i) => this.#byObject.set(e, i));
      return eps.length - 1;
    }
    const known = this.#byObject.get(ep);
    if (known !== undefined) return known;
    this.#byObject.set(ep, eps.length);
    return eps.push(ep) - 1;
  }
}

const SMALL_TABLE = 16;
const table = new EndpointTable();
