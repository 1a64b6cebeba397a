/**
 * Address ranges as bigints, and the disjoint decomposition nftables interval sets need: a
 * concatenated interval set refuses an element whose start lies inside another element, so the
 * union of a pod's allowed (peer range x port range) boxes is rewritten as boxes that never overlap.
 */
import { formatIP, parseCIDR, parseIP, type IPFamily } from '@kpng/core';

export interface AddressRange {
  readonly first: bigint;
  readonly last: bigint;
}

export interface PortSpan {
  readonly first: number;
  readonly last: number;
}

/** One box of a pod's allowed traffic: peers in `peers` on ports in `ports`. */
export interface Box {
  readonly peers: AddressRange;
  readonly ports: PortSpan;
}

function bytesToBigint(bytes: readonly number[]): bigint {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  return value;
}

function bigintToBytes(value: bigint, length: number): number[] {
  const bytes = new Array<number>(length);
  for (let i = length - 1; i >= 0; i--) {
    bytes[i] = Number(value & 0xffn);
    value >>= 8n;
  }
  return bytes;
}

/** A peer (an IP or a canonical CIDR) as the addresses it covers; undefined when not of `family`. */
export function addressRange(peer: string, family: IPFamily): AddressRange | undefined {
  if (peer.includes('/')) {
    const cidr = parseCIDR(peer);
    if (cidr === undefined || cidr.family !== family) return undefined;
    const bits = BigInt(cidr.network.length * 8);
    const first = bytesToBigint(cidr.network);
    const hostBits = bits - BigInt(cidr.prefixLength);
    return { first, last: first + (1n << hostBits) - 1n };
  }
  const ip = parseIP(peer);
  if (ip === undefined || ip.family !== family) return undefined;
  const value = bytesToBigint(ip.bytes);
  return { first: value, last: value };
}

/** The whole address space of a family. */
export function everyAddress(family: IPFamily): AddressRange {
  return { first: 0n, last: (1n << (family === 'IPv4' ? 32n : 128n)) - 1n };
}

export function formatAddress(value: bigint, family: IPFamily): string {
  return formatIP({ family, bytes: bigintToBytes(value, family === 'IPv4' ? 4 : 16) });
}

/** nft text for a range: one address, or `first-last`. */
export function formatRange(range: AddressRange, family: IPFamily): string {
  const first = formatAddress(range.first, family);
  return range.first === range.last ? first : `${first}-${formatAddress(range.last, family)}`;
}

export function formatPorts(span: PortSpan): string {
  return span.first === span.last ? String(span.first) : `${span.first}-${span.last}`;
}

/** Sorted, merged (touching or overlapping) port spans. */
export function mergePorts(spans: Iterable<PortSpan>): PortSpan[] {
  const sorted = [...spans].sort((a, b) => a.first - b.first);
  const merged: PortSpan[] = [];
  for (const span of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && span.first <= last.last + 1)
      merged[merged.length - 1] = { first: last.first, last: Math.max(last.last, span.last) };
    else merged.push(span);
  }
  return merged;
}

/**
 * The union of `boxes` as disjoint boxes: a sweep over the address axis keeps the active boxes'
 * port spans (counted, so overlapping boxes come and go independently); each stretch of addresses
 * with the same merged port spans becomes one box per span. O(n log n) in the number of boxes,
 * times the distinct port spans active at once (a handful).
 */
export function disjointBoxes(boxes: readonly Box[]): Box[] {
  const events: { at: bigint; delta: 1 | -1; ports: string }[] = [];
  for (const box of boxes) {
    const ports = `${box.ports.first}-${box.ports.last}`;
    events.push({ at: box.peers.first, delta: 1, ports }, { at: box.peers.last + 1n, delta: -1, ports });
  }
  events.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const active = new Map<string, number>();
  const out: Box[] = [];
  let open: { first: bigint; spans: PortSpan[]; key: string } | undefined;
  const close = (end: bigint): void => {
    if (open === undefined) return;
    for (const ports of open.spans) out.push({ peers: { first: open.first, last: end }, ports });
    open = undefined;
  };
  for (let i = 0; i < events.length;) {
    const at = (events[i] as (typeof events)[number]).at;
    for (; i < events.length && (events[i] as (typeof events)[number]).at === at; i++) {
      const event = events[i] as (typeof events)[number];
      const count = (active.get(event.ports) ?? 0) + event.delta;
      if (count === 0) active.delete(event.ports);
      else active.set(event.ports, count);
    }
    const spans = mergePorts(
      [...active.keys()].map((key) => {
        const [first, last] = key.split('-').map(Number) as [number, number];
        return { first, last };
      }),
    );
    const key = spans.map(formatPorts).join(',');
    if (open !== undefined && open.key === key) continue;
    close(at - 1n);
    if (spans.length > 0) open = { first: at, spans, key };
  }
  return out;
}

/** The union of address ranges as disjoint ranges (touching ranges merged). */
export function disjointRanges(ranges: readonly AddressRange[]): AddressRange[] {
  return disjointBoxes(ranges.map((peers) => ({ peers, ports: { first: 0, last: 0 } }))).map((box) => box.peers);
}
