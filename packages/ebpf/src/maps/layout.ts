/**
 * The BPF maps' keys and values, byte for byte as bpf/sock_lb.c declares them. Addresses and ports
 * are in network byte order (as the socket hooks see them); ids, counts and flags in the host's
 * (little-endian on every platform kpng ships for: x86_64, arm64). An IPv4 address fills the first
 * 4 bytes of a 16-byte address field.
 */
import { formatIP, parseIP, type IPFamily, type Protocol } from '@kpng/core';

/** The maps this backend owns, by their names in the object. */
export const MAP_NAMES = ['services4', 'services6', 'endpoints'] as const;
export type MapName = (typeof MAP_NAMES)[number];

export const SIZES = {
  services4: { key: 8, value: 16 },
  services6: { key: 20, value: 16 },
  endpoints: { key: 8, value: 20 },
} as const satisfies Record<MapName, { key: number; value: number }>;

/**
 * The per-client and per-socket maps the programs write (userspace only reads them: `explain`):
 * `affinity` (netns cookie, lb id) -> (last use, index, endpoint), `revnat` (socket cookie,
 * endpoint) -> the Service address and port the socket asked for.
 */
export const STATE_SIZES = {
  affinity: { key: 16, value: 40 },
  revnat: { key: 32, value: 20 },
} as const;

export const LB_REJECT = 1;
export const LB_UNREACHABLE = 2;

/** IPPROTO_* as the socket hooks see them (SCTP sockets never reach these hooks' Services). */
export const IPPROTO: Readonly<Record<Protocol, number>> = { TCP: 6, UDP: 17, SCTP: 132 };

export function serviceMapOf(family: IPFamily): 'services4' | 'services6' {
  return family === 'IPv4' ? 'services4' : 'services6';
}

function addressBytes(ip: string, family: IPFamily): readonly number[] {
  const parsed = parseIP(ip);
  if (parsed === undefined || parsed.family !== family) throw new Error(`not an ${family} address: ${ip}`);
  return parsed.bytes;
}

/** The services4/services6 key: (address, port, protocol). */
export function serviceKey(family: IPFamily, ip: string, port: number, protocol: Protocol): Buffer {
  const bytes = addressBytes(ip, family);
  const key = Buffer.alloc(family === 'IPv4' ? 8 : 20);
  key.set(bytes, 0);
  key.writeUInt16BE(port, bytes.length);
  key.writeUInt8(IPPROTO[protocol], bytes.length + 2);
  return key;
}

export interface LbValue {
  readonly id: number;
  readonly count: number;
  /** 0: no session affinity. */
  readonly affinitySeconds: number;
  readonly flags: number;
}

export function lbValue(lb: LbValue): Buffer {
  const value = Buffer.alloc(16);
  value.writeUInt32LE(lb.id, 0);
  value.writeUInt32LE(lb.count, 4);
  value.writeUInt32LE(lb.affinitySeconds, 8);
  value.writeUInt32LE(lb.flags, 12);
  return value;
}

export function decodeLb(value: Buffer): LbValue {
  return {
    id: value.readUInt32LE(0),
    count: value.readUInt32LE(4),
    affinitySeconds: value.readUInt32LE(8),
    flags: value.readUInt32LE(12),
  };
}

export function endpointKey(id: number, index: number): Buffer {
  const key = Buffer.alloc(8);
  key.writeUInt32LE(id, 0);
  key.writeUInt32LE(index, 4);
  return key;
}

export function endpointValue(family: IPFamily, ip: string, port: number): Buffer {
  const value = Buffer.alloc(20);
  value.set(addressBytes(ip, family), 0);
  value.writeUInt16BE(port, 16);
  return value;
}

/** An endpoint value (or the endpoint part of a revnat key, or a revnat value): `ip:port`, `[ip6]:port`. */
export function decodeEndpoint(bytes: Buffer, family: IPFamily, offset = 0): string {
  const ip = formatIP({ family, bytes: [...bytes.subarray(offset, offset + (family === 'IPv4' ? 4 : 16))] });
  const port = bytes.readUInt16BE(offset + 16);
  return family === 'IPv4' ? `${ip}:${port}` : `[${ip}]:${port}`;
}
