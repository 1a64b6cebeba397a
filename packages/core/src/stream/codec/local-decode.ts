/** kpng.localnet.v1 bytes -> NodeLocalState, reusing unchanged Services through a DecodedItemCache. */
import { runSteps, runStepsYielding, TurnBudget } from '@kpng/kit';
import type { IPFamily, NodeName, ServiceKey, ServicePortKey, SessionAffinity } from '../../model/types.js';
import type {
  FamilyAddresses,
  FamilyEndpoints,
  LocalEndpoint,
  LocalNode,
  LocalService,
  LocalServicePort,
  NodeLocalState,
} from '../../nodeview/types.js';
import { NO_CHANGES_MESSAGE, readChanges, type DecodedChanges } from './changes.js';
import { familyFromWire, protocolFromWire, serviceTypeFromWire } from './enums.js';
import { readAffinity, readMapEntry } from './shared-decode.js';
import type { Delivery } from '../hub.js';
import { bulkCopy, DecodedItemCache } from './item-cache.js';
import { malformed, ProtoReader } from './wire/reader.js';
import { peekItemKey, POLICY_FIELDS, readPeerGroup, readPolicyPod } from './local-policy.js';
import type { PeerGroup, PeerGroupKey, PodKey, PodPolicy } from '../../policy/types.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
const NO_AFFINITY: SessionAffinity = { type: 'None' };
const NO_NODE: LocalNode = { name: '' as NodeName, labels: {}, podCIDRs: [], addresses: [], eligible: false };

/** Decodes the State message in `buf[start, end)`. */
export function decodeLocalState(
  buf: Buffer,
  start: number,
  end: number,
  cache?: DecodedItemCache<LocalService>,
  policyCache?: PolicyDecodeCache,
): Delivery<NodeLocalState> {
  const steps = decodeSteps(buf, start, end, cache, undefined, policyCache);
  return runSteps(steps);
}

/**
 * `decodeLocalState` yielding to the event loop once a turn's budget is used (between Services), so
 * a client never decodes a big state in one turn; `onDecoded` sees each Service decoded (not taken
 * from the cache), e.g. to check it within the same budget.
 */
export function decodeLocalStateInTurns(
  buf: Buffer,
  start: number,
  end: number,
  cache: DecodedItemCache<LocalService>,
  onDecoded: (svc: LocalService) => void,
  budget = new TurnBudget(10),
  policyCache?: PolicyDecodeCache,
): Promise<Delivery<NodeLocalState>> {
  const steps = decodeSteps(buf, start, end, cache, onDecoded, policyCache);
  return runStepsYielding(steps, budget);
}

/** The decode, one step per Service read. */
function* decodeSteps(
  buf: Buffer,
  start: number,
  end: number,
  cache: DecodedItemCache<LocalService> | undefined,
  onDecoded?: (svc: LocalService) => void,
  policyCache?: PolicyDecodeCache,
): Generator<void, Delivery<NodeLocalState>> {
  const r = new ProtoReader(buf, start, end);
  let instanceId = '';
  let revision = 0;
  let changes: DecodedChanges = NO_CHANGES_MESSAGE;
  let node = NO_NODE;
  const services: LocalService[] = [];
  const read = (itemEnd: number): LocalService => {
    const svc = readService(r, itemEnd);
    onDecoded?.(svc);
    return svc;
  };
  let hasPolicy = false;
  const pods = new Map<PodKey, PodPolicy>();
  const groups = new Map<PeerGroupKey, PeerGroup>();
  cache?.begin(cache.isEmpty ? bulkCopy(buf, start, end) : undefined);
  policyCache?.pods.begin(undefined);
  policyCache?.groups.begin(undefined);
  try {
    while (r.pos < end) {
      const tag = r.varint();
      if (tag === ((5 << 3) | 2)) {
        const itemEnd = r.delimitedEnd();
        const at = r.pos;
        services.push(
          cache ? cache.get(peekItemKey(r, itemEnd), buf, at, itemEnd, () => read(itemEnd)) : read(itemEnd),
        );
        r.pos = itemEnd;
        yield;
      } else if (tag === ((POLICY_FIELDS.pods << 3) | 2)) {
        const itemEnd = r.delimitedEnd();
        const at = r.pos;
        const readPod = () => readPolicyPod(r, itemEnd);
        const [key, pod] = policyCache
          ? policyCache.pods.get(peekItemKey(r, itemEnd), buf, at, itemEnd, readPod)
          : readPod();
        pods.set(key, pod);
        r.pos = itemEnd;
        yield;
      } else if (tag === ((POLICY_FIELDS.groups << 3) | 2)) {
        const itemEnd = r.delimitedEnd();
        const at = r.pos;
        const readGroup = () => readPeerGroup(r, itemEnd);
        const [key, group] = policyCache
          ? policyCache.groups.get(peekItemKey(r, itemEnd), buf, at, itemEnd, readGroup)
          : readGroup();
        groups.set(key, group);
        r.pos = itemEnd;
        yield;
      } else if (tag === ((POLICY_FIELDS.present << 3) | 0)) hasPolicy = r.bool();
      else if (tag === ((1 << 3) | 2)) instanceId = r.string();
      else if (tag === ((2 << 3) | 0)) revision = r.varint();
      else if (tag === ((3 << 3) | 2)) changes = readChanges(r, r.delimitedEnd());
      else if (tag === ((4 << 3) | 2)) node = readNode(r, r.delimitedEnd());
      else r.skip(tag & 7);
    }
  } catch (e) {
    cache?.discard();
    policyCache?.pods.discard();
    policyCache?.groups.discard();
    throw e;
  }
  cache?.commit();
  policyCache?.pods.commit();
  policyCache?.groups.commit();
  const state: NodeLocalState =
    hasPolicy || pods.size > 0 || groups.size > 0 ? { node, services, policy: { pods, groups } } : { node, services };
  return { state, instanceId, revision, changes: changes.changes, full: changes.full };
}

/** The client's decode caches of the policy view: an unchanged pod or group keeps its object. */
export interface PolicyDecodeCache {
  readonly pods: DecodedItemCache<readonly [PodKey, PodPolicy]>;
  readonly groups: DecodedItemCache<readonly [PeerGroupKey, PeerGroup]>;
}

export function policyDecodeCache(): PolicyDecodeCache {
  return { pods: new DecodedItemCache(), groups: new DecodedItemCache() };
}

function readNode(r: ProtoReader, end: number): LocalNode {
  let name = '';
  const labels: Record<string, string> = {};
  let zone: string | undefined;
  const podCIDRs: string[] = [];
  const addresses: string[] = [];
  let eligible = false;
  const serviceCIDRs: string[] = [];
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === ((1 << 3) | 2)) name = r.string();
    else if (tag === ((2 << 3) | 2)) {
      const [k, v] = readMapEntry(r, r.delimitedEnd());
      labels[k] = v;
    } else if (tag === ((3 << 3) | 2)) zone = r.string();
    else if (tag === ((4 << 3) | 2)) podCIDRs.push(r.string());
    else if (tag === ((5 << 3) | 2)) addresses.push(r.string());
    else if (tag === ((6 << 3) | 0)) eligible = r.bool();
    else if (tag === ((7 << 3) | 2)) serviceCIDRs.push(r.string());
    else r.skip(tag & 7);
  }
  r.finish(end);
  const node: Mutable<LocalNode> = { name: name as NodeName, labels, podCIDRs, addresses, eligible };
  if (zone !== undefined) node.zone = zone;
  if (serviceCIDRs.length > 0) node.serviceCIDRs = serviceCIDRs;
  return node;
}

function readService(r: ProtoReader, end: number): LocalService {
  let key = '';
  let namespace = '';
  let name = '';
  let type = 0;
  const families: Partial<Record<IPFamily, FamilyAddresses>> = {};
  let sessionAffinity = NO_AFFINITY;
  let externalPolicyLocal = false;
  let internalPolicyLocal = false;
  let externallyAccessible = false;
  let healthCheckNodePort = 0;
  let localReadyEndpoints = 0;
  let preserveDestination = false;
  const ports: LocalServicePort[] = [];
  while (r.pos < end) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | 2:
        key = r.string();
        break;
      case (2 << 3) | 2:
        namespace = r.repeatedString();
        break;
      case (3 << 3) | 2:
        name = r.string();
        break;
      case (4 << 3) | 0:
        type = r.varint();
        break;
      case (5 << 3) | 2: {
        const [family, addresses] = readFamilyAddresses(r, r.delimitedEnd());
        families[family] = addresses;
        break;
      }
      case (6 << 3) | 2:
        sessionAffinity = readAffinity(r, r.delimitedEnd());
        break;
      case (7 << 3) | 0:
        externalPolicyLocal = r.bool();
        break;
      case (8 << 3) | 0:
        internalPolicyLocal = r.bool();
        break;
      case (9 << 3) | 0:
        externallyAccessible = r.bool();
        break;
      case (10 << 3) | 0:
        healthCheckNodePort = r.varint();
        break;
      case (11 << 3) | 0:
        localReadyEndpoints = r.varint();
        break;
      case (12 << 3) | 2:
        ports.push(readPort(r, r.delimitedEnd()));
        break;
      case (13 << 3) | 0:
        preserveDestination = r.bool();
        break;
      default:
        r.skip(tag & 7);
    }
  }
  r.finish(end);
  return {
    key: key as ServiceKey,
    namespace,
    name,
    type: serviceTypeFromWire(type),
    families,
    sessionAffinity,
    externalPolicyLocal,
    internalPolicyLocal,
    externallyAccessible,
    healthCheckNodePort,
    localReadyEndpoints,
    ports,
    ...(preserveDestination ? { preserveDestination: true as const } : {}),
  };
}

function readFamilyAddresses(r: ProtoReader, end: number): [IPFamily, FamilyAddresses] {
  let family = 0;
  let clusterIP = '';
  const externalIPs: string[] = [];
  const loadBalancerIPs: string[] = [];
  const loadBalancerSourceRanges: string[] = [];
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === ((1 << 3) | 0)) family = r.varint();
    else if (tag === ((2 << 3) | 2)) clusterIP = r.string();
    else if (tag === ((3 << 3) | 2)) externalIPs.push(r.string());
    else if (tag === ((4 << 3) | 2)) loadBalancerIPs.push(r.string());
    else if (tag === ((5 << 3) | 2)) loadBalancerSourceRanges.push(r.string());
    else r.skip(tag & 7);
  }
  r.finish(end);
  return [familyFromWire(family), { clusterIP, externalIPs, loadBalancerIPs, loadBalancerSourceRanges }];
}

function readPort(r: ProtoReader, end: number): LocalServicePort {
  let key = '';
  let name = '';
  let protocol = 0;
  let port = 0;
  let nodePort = 0;
  const endpoints: Partial<Record<IPFamily, FamilyEndpoints>> = {};
  while (r.pos < end) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | 2:
        key = r.string();
        break;
      case (2 << 3) | 2:
        name = r.string();
        break;
      case (3 << 3) | 0:
        protocol = r.varint();
        break;
      case (4 << 3) | 0:
        port = r.varint();
        break;
      case (5 << 3) | 0:
        nodePort = r.varint();
        break;
      case (6 << 3) | 2: {
        const [family, fe] = readFamilyEndpoints(r, r.delimitedEnd());
        endpoints[family] = fe;
        break;
      }
      default:
        r.skip(tag & 7);
    }
  }
  r.finish(end);
  return { key: key as ServicePortKey, name, protocol: protocolFromWire(protocol), port, nodePort, endpoints };
}

/** Index lists of the FamilyEndpoints being decoded (decoding is synchronous and never nested). */
const scratchLists: number[][] = [[], [], [], [], [], []];

function readFamilyEndpoints(r: ProtoReader, end: number): [IPFamily, FamilyEndpoints] {
  let family = 0;
  const table: LocalEndpoint[] = [];
  // cluster, local, internal, external, allReachable, serving: fields 3..8, possibly before the table.
  const lists = scratchLists;
  for (const list of lists) list.length = 0;
  let hasAnyEndpoints = false;
  let externallyAccessible = false;
  let externalPolicyLocal = false;
  while (r.pos < end) {
    const tag = r.varint();
    const field = tag >>> 3;
    if (tag === ((1 << 3) | 0)) family = r.varint();
    else if (tag === ((2 << 3) | 2)) table.push(readEndpoint(r, r.delimitedEnd()));
    else if (field >= 3 && field <= 8) r.uints(tag & 7, lists[field - 3]!);
    else if (tag === ((9 << 3) | 0)) hasAnyEndpoints = r.bool();
    else if (tag === ((10 << 3) | 0)) externallyAccessible = r.bool();
    else if (tag === ((11 << 3) | 0)) externalPolicyLocal = r.bool();
    else r.skip(tag & 7);
  }
  r.finish(end);
  // Equal index lists (internal is usually cluster or local) share one array, as on the server.
  const resolved: (readonly LocalEndpoint[])[] = [];
  for (let i = 0; i < lists.length; i++) {
    const twin = lists.findIndex((other, j) => j < i && sameNumbers(other, lists[i]!));
    resolved.push(twin >= 0 ? resolved[twin]! : resolve(lists[i]!, table));
  }
  const [cluster, local, internal, external, allReachable, serving] = resolved;
  return [
    familyFromWire(family),
    {
      cluster: cluster!,
      local: local!,
      internal: internal!,
      external: external!,
      allReachable: allReachable!,
      hasAnyEndpoints,
      serving: serving!,
      externallyAccessible,
      externalPolicyLocal,
    },
  ];
}

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const EMPTY: readonly LocalEndpoint[] = Object.freeze([]);

function resolve(indexes: readonly number[], table: readonly LocalEndpoint[]): readonly LocalEndpoint[] {
  if (indexes.length === 0) return EMPTY;
  const out: LocalEndpoint[] = [];
  for (let i = 0; i < indexes.length; i++) {
    const ep = table[indexes[i]!];
    if (ep === undefined) throw malformed(`endpoint index ${indexes[i]} out of range`);
    out.push(ep);
  }
  return out;
}

function readEndpoint(r: ProtoReader, end: number): LocalEndpoint {
  let ip = '';
  let port = 0;
  let ready = false;
  let serving = false;
  let terminating = false;
  let isLocal = false;
  let nodeName: string | undefined;
  let zone: string | undefined;
  while (r.pos < end) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | 2:
        ip = r.string();
        break;
      case (2 << 3) | 0:
        port = r.varint();
        break;
      case (3 << 3) | 0:
        ready = r.bool();
        break;
      case (4 << 3) | 0:
        serving = r.bool();
        break;
      case (5 << 3) | 0:
        terminating = r.bool();
        break;
      case (6 << 3) | 0:
        isLocal = r.bool();
        break;
      case (7 << 3) | 2:
        nodeName = r.repeatedString();
        break;
      case (8 << 3) | 2:
        zone = r.repeatedString();
        break;
      default:
        r.skip(tag & 7);
    }
  }
  r.finish(end);
  // One literal per shape: objects are created with their final hidden class.
  if (nodeName !== undefined && zone !== undefined)
    return { ip, port, ready, serving, terminating, isLocal, nodeName, zone };
  if (nodeName !== undefined) return { ip, port, ready, serving, terminating, isLocal, nodeName };
  if (zone !== undefined) return { ip, port, ready, serving, terminating, isLocal, zone };
  return { ip, port, ready, serving, terminating, isLocal };
}
