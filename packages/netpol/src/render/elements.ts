/**
 * The policy view rendered as set elements: per local pod, family and direction, the pod's IP in
 * the isolated set and its allow rules as disjoint (pod . peer range . protocol . port range) and
 * (pod . peer range) elements. Pure: the same state always renders the same elements.
 */
import type { AllowRule, DirectionPolicy, IPFamily, PodPolicy, PolicyState, Protocol } from '@kpng/core';
import { DIRECTIONS, setNames, type Direction } from './names.js';
import {
  addressRange,
  disjointBoxes,
  disjointRanges,
  everyAddress,
  formatPorts,
  formatRange,
  type AddressRange,
  type Box,
} from './ranges.js';

/** Desired elements: set name -> element id (the key joined with ` . `) -> key. */
export type DesiredElements = Map<string, Map<string, readonly string[]>>;

const NFT_PROTOCOL: Readonly<Record<Protocol, string>> = { TCP: 'tcp', UDP: 'udp', SCTP: 'sctp' };

function familyOf(ip: string): IPFamily {
  return ip.includes(':') ? 'IPv6' : 'IPv4';
}

function peerRanges(rule: AllowRule, family: IPFamily): AddressRange[] {
  if (rule.peers === undefined) return [everyAddress(family)];
  return rule.peers
    .map((peer) => addressRange(peer, family))
    .filter((range): range is AddressRange => range !== undefined);
}

function add(out: DesiredElements, set: string, key: readonly string[]): void {
  let elements = out.get(set);
  if (elements === undefined) out.set(set, (elements = new Map()));
  elements.set(key.join(' . '), key);
}

function renderDirection(out: DesiredElements, ip: string, policy: DirectionPolicy, direction: Direction): void {
  if (!policy.isolated) return;
  const family = familyOf(ip);
  const names = setNames(direction, family);
  add(out, names.isolated, [ip]);
  const anyPort: AddressRange[] = [];
  const byProtocol = new Map<Protocol, Box[]>();
  for (const rule of policy.allow) {
    // One peer IP on one port: an exact element (hash set); the rest: disjoint interval elements.
    const single = (rule.peers ?? []).filter((peer) => !peer.includes('/') && familyOf(peer) === family);
    const ranges = peerRanges(
      { ...rule, ...(rule.peers === undefined ? {} : { peers: rule.peers.filter((peer) => peer.includes('/')) }) },
      family,
    );
    if (rule.ports === undefined) {
      for (const peer of single) add(out, names.exactAny, [ip, peer]);
      anyPort.push(...ranges);
      continue;
    }
    for (const range of rule.ports) {
      const boxes = byProtocol.get(range.protocol) ?? [];
      const ports = { first: range.port, last: range.endPort };
      if (range.port === range.endPort) {
        for (const peer of single)
          add(out, names.exactPorts, [ip, peer, NFT_PROTOCOL[range.protocol], String(range.port)]);
      } else {
        for (const peer of single) boxes.push({ peers: addressRange(peer, family) as AddressRange, ports });
      }
      for (const peer of ranges) boxes.push({ peers: peer, ports });
      byProtocol.set(range.protocol, boxes);
    }
  }
  for (const peer of disjointRanges(anyPort)) add(out, names.any, [ip, formatRange(peer, family)]);
  for (const [protocol, boxes] of byProtocol) {
    for (const box of disjointBoxes(boxes))
      add(out, names.ports, [ip, formatRange(box.peers, family), NFT_PROTOCOL[protocol], formatPorts(box.ports)]);
  }
}

/** One pod's elements (each of its IPs, both directions). */
export function renderPod(out: DesiredElements, pod: PodPolicy, families: readonly IPFamily[]): void {
  for (const ip of pod.ips) {
    if (!families.includes(familyOf(ip))) continue;
    for (const direction of DIRECTIONS)
      renderDirection(out, ip, direction === 'ingress' ? pod.ingress : pod.egress, direction);
  }
}

export function renderElements(state: PolicyState, families: readonly IPFamily[]): DesiredElements {
  const out: DesiredElements = new Map();
  for (const pod of state.pods.values()) renderPod(out, pod, families);
  return out;
}
