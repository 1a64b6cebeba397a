/**
 * The node-local policy view (`PolicyState`) on kpng.localnet.v1: State fields 6 (`PolicyPod`,
 * one per local pod), 7 (`PeerGroup`, one per group the pods name) and 8 (`has_policy`). Each
 * message is encoded once per object (the policy view hands out the same object for an unchanged
 * pod or group), and the client's decode caches give an unchanged one back as the same object, so
 * the enforcer over `--connect` renders only what changed, as in process.
 */
import type {
  AllowRule,
  DirectionPolicy,
  PeerEndpoint,
  PeerGroup,
  PeerGroupKey,
  PodKey,
  PodPolicy,
  PortRange,
} from '../../policy/types.js';
import { protocolFromWire, PROTOCOL_WIRE } from './enums.js';
import type { ProtoReader } from './wire/reader.js';
import { ProtoWriter } from './wire/writer.js';

/** State field numbers of the policy view. */
export const POLICY_FIELDS = { pods: 6, groups: 7, present: 8 } as const;

const writer = new ProtoWriter();
const encodedPods = new WeakMap<PodPolicy, Buffer>();
const encodedGroups = new WeakMap<PeerGroup, Map<string, Buffer>>();

/** The bytes of one `PolicyPod` message, cached per object. */
export function encodePolicyPod(pod: PodPolicy): Buffer {
  let bytes = encodedPods.get(pod);
  if (bytes === undefined) {
    writer.reset();
    writer.string(1, `${pod.namespace}/${pod.name}`); // first: the client's decode cache keys on it
    writer.string(2, pod.namespace);
    writer.string(3, pod.name);
    writer.strings(4, pod.ips);
    writeDirection(writer, 5, pod.ingress);
    writeDirection(writer, 6, pod.egress);
    bytes = writer.finish();
    encodedPods.set(pod, bytes);
  }
  return bytes;
}

/** The bytes of one `PeerGroup` message, cached per object and key. */
export function encodePeerGroup(key: PeerGroupKey, group: PeerGroup): Buffer {
  let byKey = encodedGroups.get(group);
  if (byKey === undefined) encodedGroups.set(group, (byKey = new Map()));
  let bytes = byKey.get(key);
  if (bytes === undefined) {
    writer.reset();
    writer.string(1, key);
    if (group.kind === 'ips') writer.strings(2, group.ips);
    else {
      writer.bool(4, true);
      for (const e of group.endpoints) {
        const mark = writer.fork(3);
        writer.string(1, e.ip);
        writer.uint(2, PROTOCOL_WIRE[e.protocol]);
        writer.uint(3, e.port);
        writer.join(mark);
      }
    }
    bytes = writer.finish();
    byKey.set(key, bytes);
  }
  return bytes;
}

function writeDirection(w: ProtoWriter, field: number, d: DirectionPolicy): void {
  const mark = w.fork(field);
  w.bool(1, d.isolated);
  for (const rule of d.allow) {
    const r = w.fork(2);
    if (rule.peers !== undefined) {
      const p = w.fork(1); // present even when empty: no peer at all, not every peer
      if (rule.peers.group !== undefined) w.stringAlways(1, rule.peers.group);
      w.strings(2, rule.peers.cidrs);
      w.join(p);
    }
    for (const range of rule.ports ?? []) {
      const m = w.fork(2);
      w.uint(1, PROTOCOL_WIRE[range.protocol]);
      w.uint(2, range.port);
      w.uint(3, range.endPort);
      w.join(m);
    }
    if (rule.endpoints !== undefined) w.stringAlways(3, rule.endpoints);
    w.join(r);
  }
  w.join(mark);
}

/** The key (field 1) of a `Service`, `PolicyPod` or `PeerGroup`, when it comes first (kpng's encoder puts it there). */
export function peekItemKey(r: ProtoReader, end: number): string | undefined {
  if (r.pos >= end || r.buf[r.pos] !== ((1 << 3) | 2)) return undefined;
  const at = r.pos;
  r.pos++;
  const key = r.string();
  r.pos = at;
  return key;
}

export function readPolicyPod(r: ProtoReader, end: number): [PodKey, PodPolicy] {
  let key = '';
  let namespace = '';
  let name = '';
  const ips: string[] = [];
  let ingress = NOT_ISOLATED;
  let egress = NOT_ISOLATED;
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === ((1 << 3) | 2)) key = r.string();
    else if (tag === ((2 << 3) | 2)) namespace = r.string();
    else if (tag === ((3 << 3) | 2)) name = r.string();
    else if (tag === ((4 << 3) | 2)) ips.push(r.string());
    else if (tag === ((5 << 3) | 2)) ingress = readDirection(r, r.delimitedEnd());
    else if (tag === ((6 << 3) | 2)) egress = readDirection(r, r.delimitedEnd());
    else r.skip(tag & 7);
  }
  r.finish(end);
  return [key as PodKey, { namespace, name, ips, ingress, egress }];
}

export function readPeerGroup(r: ProtoReader, end: number): [PeerGroupKey, PeerGroup] {
  let key = '';
  const ips: string[] = [];
  const endpoints: PeerEndpoint[] = [];
  let named = false;
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === ((1 << 3) | 2)) key = r.string();
    else if (tag === ((2 << 3) | 2)) ips.push(r.string());
    else if (tag === ((3 << 3) | 2)) endpoints.push(readEndpoint(r, r.delimitedEnd()));
    else if (tag === ((4 << 3) | 0)) named = r.bool();
    else r.skip(tag & 7);
  }
  r.finish(end);
  return [key as PeerGroupKey, named ? { kind: 'endpoints', endpoints } : { kind: 'ips', ips }];
}

const NOT_ISOLATED: DirectionPolicy = { isolated: false, allow: [] };

function readDirection(r: ProtoReader, end: number): DirectionPolicy {
  let isolated = false;
  const allow: AllowRule[] = [];
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === ((1 << 3) | 0)) isolated = r.bool();
    else if (tag === ((2 << 3) | 2)) allow.push(readAllow(r, r.delimitedEnd()));
    else r.skip(tag & 7);
  }
  r.finish(end);
  return { isolated, allow };
}

function readAllow(r: ProtoReader, end: number): AllowRule {
  let group: string | undefined;
  let cidrs: string[] | undefined;
  const ports: PortRange[] = [];
  let endpoints: string | undefined;
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === ((1 << 3) | 2)) {
      const peersEnd = r.delimitedEnd();
      cidrs = [];
      while (r.pos < peersEnd) {
        const t = r.varint();
        if (t === ((1 << 3) | 2)) group = r.string();
        else if (t === ((2 << 3) | 2)) cidrs.push(r.string());
        else r.skip(t & 7);
      }
      r.finish(peersEnd);
    } else if (tag === ((2 << 3) | 2)) ports.push(readRange(r, r.delimitedEnd()));
    else if (tag === ((3 << 3) | 2)) endpoints = r.string();
    else r.skip(tag & 7);
  }
  r.finish(end);
  const rule: { -readonly [K in keyof AllowRule]: AllowRule[K] } = {};
  if (cidrs !== undefined) rule.peers = group === undefined ? { cidrs } : { group: group as PeerGroupKey, cidrs };
  if (ports.length > 0) rule.ports = ports;
  if (endpoints !== undefined) rule.endpoints = endpoints as PeerGroupKey;
  return rule;
}

function readRange(r: ProtoReader, end: number): PortRange {
  let protocol = 0; // absent: unspecified, refused
  let port = 0;
  let endPort = 0;
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === ((1 << 3) | 0)) protocol = r.varint();
    else if (tag === ((2 << 3) | 0)) port = r.varint();
    else if (tag === ((3 << 3) | 0)) endPort = r.varint();
    else r.skip(tag & 7);
  }
  r.finish(end);
  return { protocol: protocolFromWire(protocol), port, endPort };
}

function readEndpoint(r: ProtoReader, end: number): PeerEndpoint {
  let ip = '';
  let protocol = 0; // absent: unspecified, refused
  let port = 0;
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === ((1 << 3) | 2)) ip = r.string();
    else if (tag === ((2 << 3) | 0)) protocol = r.varint();
    else if (tag === ((3 << 3) | 0)) port = r.varint();
    else r.skip(tag & 7);
  }
  r.finish(end);
  return { ip, protocol: protocolFromWire(protocol), port };
}
