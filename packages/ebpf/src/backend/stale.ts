/**
 * Stale UDP flows: the (Service address, endpoint) pairs of UDP Services that a sync removed. A
 * connected UDP socket balanced along such a pair keeps sending to an endpoint the Service no
 * longer has (socket load balancing leaves no conntrack entry to clear); the kernel side
 * (`LbKernel.staleUdp`, bpf/stale_udp.c) ends those sockets. Pairs are hex of the walker's 40-byte
 * key: the Service address and port, then the endpoint's, each as an `ep` (16-byte address, port, pad).
 */
import { IPPROTO } from '../maps/layout.js';
import type { Entries } from './plan.js';

const UDP = IPPROTO.UDP.toString(16).padStart(2, '0');

/** A services4/services6 key (hex) as an `ep` (hex): address in 16 bytes, port, 2 bytes of pad. */
function serviceEp(map: 'services4' | 'services6', key: string): string | undefined {
  const addressHex = map === 'services4' ? 8 : 32;
  if (key.slice(addressHex + 4, addressHex + 6) !== UDP) return undefined;
  return key.slice(0, addressHex).padEnd(32, '0') + key.slice(addressHex, addressHex + 4) + '0000';
}

/** Every UDP (Service address, endpoint) pair a picture of the maps holds. */
export function udpPairs(entries: Entries): Set<string> {
  const frontends = new Map<string, string[]>(); // lb id (hex, little-endian) -> Service eps
  for (const map of ['services4', 'services6'] as const) {
    for (const [key, value] of entries[map]) {
      const ep = serviceEp(map, key);
      if (ep === undefined) continue;
      const id = value.slice(0, 8);
      const list = frontends.get(id);
      if (list === undefined) frontends.set(id, [ep]);
      else list.push(ep);
    }
  }
  const pairs = new Set<string>();
  if (frontends.size === 0) return pairs;
  for (const [key, endpoint] of entries.endpoints)
    for (const service of frontends.get(key.slice(0, 8)) ?? []) pairs.add(service + endpoint);
  return pairs;
}

/** The UDP pairs `before` holds and `after` does not. */
export function removedUdpPairs(before: Entries, after: Entries): string[] {
  const old = udpPairs(before);
  if (old.size === 0) return [];
  const now = udpPairs(after);
  return [...old].filter((pair) => !now.has(pair));
}
