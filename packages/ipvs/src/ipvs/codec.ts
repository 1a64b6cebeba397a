import { isIPv4 } from 'node:net';
import {
  type Attribute,
  be16,
  cString,
  decodeAttributes,
  nested,
  readCString,
  u16,
  u32,
} from '../netlink/attributes.js';
import type { IpvsFamily, IpvsProtocol, ObservedRealServer, RealServer, VirtualServer } from './types.js';

// include/uapi/linux/ip_vs.h
export const IPVS_GENL_NAME = 'IPVS';
export const IPVS_GENL_VERSION = 1;
export const CMD = {
  NEW_SERVICE: 1,
  SET_SERVICE: 2,
  DEL_SERVICE: 3,
  GET_SERVICE: 4,
  NEW_DEST: 5,
  SET_DEST: 6,
  DEL_DEST: 7,
  GET_DEST: 8,
  SET_CONFIG: 12,
  FLUSH: 17,
} as const;
export const CMD_ATTR = { SERVICE: 1, DEST: 2, TIMEOUT_TCP: 4, TIMEOUT_TCP_FIN: 5, TIMEOUT_UDP: 6 } as const;
const SVC = { AF: 1, PROTOCOL: 2, ADDR: 3, PORT: 4, SCHED_NAME: 6, FLAGS: 7, TIMEOUT: 8, NETMASK: 9 } as const;
const DEST = {
  ADDR: 1,
  PORT: 2,
  FWD_METHOD: 3,
  WEIGHT: 4,
  U_THRESH: 5,
  L_THRESH: 6,
  ACTIVE_CONNS: 7,
  INACT_CONNS: 8,
  ADDR_FAMILY: 11,
} as const;
const IP_VS_SVC_F_PERSISTENT = 0x1;
/** IP_VS_CONN_F_MASQ: NAT, the only forwarding method kube-proxy uses. */
const FWD_MASQ = 0;

const AF: Record<IpvsFamily, number> = { IPv4: 2, IPv6: 10 };
const PROTO: Record<IpvsProtocol, number> = { TCP: 6, UDP: 17, SCTP: 132 };
const PROTO_NAME: Record<number, IpvsProtocol> = { 6: 'TCP', 17: 'UDP', 132: 'SCTP' };

/** The identifying attributes: all DEL_SERVICE and the dest commands need. */
export function serviceId(vs: Pick<VirtualServer, 'family' | 'protocol' | 'address' | 'port'>): Attribute {
  return nested(CMD_ATTR.SERVICE, identity(vs));
}

/** NEW/SET_SERVICE need the full entry: scheduler, flags, timeout and netmask too (else EINVAL). */
export function serviceFull(vs: VirtualServer): Attribute {
  const persistent = vs.persistentSeconds > 0;
  const flags = Buffer.alloc(8);
  flags.writeUInt32LE(persistent ? IP_VS_SVC_F_PERSISTENT : 0, 0);
  flags.writeUInt32LE(0xffffffff, 4);
  // Persistence per client address: /32 as a big-endian mask for IPv4, a prefix length for IPv6.
  const netmask = vs.family === 'IPv4' ? Buffer.from([255, 255, 255, 255]) : u32(128);
  return nested(CMD_ATTR.SERVICE, [
    ...identity(vs),
    [SVC.SCHED_NAME, cString(vs.scheduler)],
    [SVC.FLAGS, flags],
    [SVC.TIMEOUT, u32(vs.persistentSeconds)],
    [SVC.NETMASK, netmask],
  ]);
}

export function destId(rs: Pick<RealServer, 'address' | 'port'>): Attribute {
  return nested(CMD_ATTR.DEST, [
    [DEST.ADDR, address(rs.address)],
    [DEST.PORT, be16(rs.port)],
  ]);
}

export function destFull(vs: VirtualServer, rs: RealServer): Attribute {
  return nested(CMD_ATTR.DEST, [
    [DEST.ADDR, address(rs.address)],
    [DEST.PORT, be16(rs.port)],
    [DEST.FWD_METHOD, u32(FWD_MASQ)],
    [DEST.WEIGHT, u32(rs.weight)],
    [DEST.U_THRESH, u32(0)],
    [DEST.L_THRESH, u32(0)],
    [DEST.ADDR_FAMILY, u16(AF[vs.family])],
  ]);
}

function identity(vs: Pick<VirtualServer, 'family' | 'protocol' | 'address' | 'port'>): Attribute[] {
  return [
    [SVC.AF, u16(AF[vs.family])],
    [SVC.PROTOCOL, u16(PROTO[vs.protocol])],
    [SVC.ADDR, address(vs.address)],
    [SVC.PORT, be16(vs.port)],
  ];
}

/** `union nf_inet_addr`: 16 bytes, IPv4 in the first four. */
function address(ip: string): Buffer {
  const out = Buffer.alloc(16);
  if (isIPv4(ip)) ip.split('.').forEach((octet, i) => out.writeUInt8(Number(octet), i));
  else ipv6Bytes(ip).copy(out);
  return out;
}

function ipv6Bytes(ip: string): Buffer {
  const [head = '', tail] = ip.split('::');
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  const all = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  const out = Buffer.alloc(16);
  all.forEach((group, i) => out.writeUInt16BE(Number.parseInt(group, 16), i * 2));
  return out;
}

function addressText(family: IpvsFamily, buf: Buffer | undefined): string {
  if (buf === undefined) return '';
  if (family === 'IPv4') return [...buf.subarray(0, 4)].join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(buf.readUInt16BE(i).toString(16));
  return compressIPv6(groups);
}

/** RFC 5952 text: the longest run (of two or more) of zero groups becomes `::`. */
function compressIPv6(groups: readonly string[]): string {
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < groups.length;) {
    let j = i;
    while (j < groups.length && groups[j] === '0') j++;
    if (j - i > bestLength) [best, bestLength] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLength).join(':')}`;
}

export function decodeService(attributes: Map<number, Buffer>): VirtualServer | undefined {
  const svc = attributes.get(CMD_ATTR.SERVICE);
  if (svc === undefined) return undefined;
  const a = decodeAttributes(svc);
  const family: IpvsFamily = a.get(SVC.AF)?.readUInt16LE(0) === AF.IPv6 ? 'IPv6' : 'IPv4';
  const protocol = PROTO_NAME[a.get(SVC.PROTOCOL)?.readUInt16LE(0) ?? 0];
  // Firewall-mark services (no protocol/address) are not ours: skip them.
  if (protocol === undefined || !a.has(SVC.ADDR)) return undefined;
  const flags = a.get(SVC.FLAGS)?.readUInt32LE(0) ?? 0;
  return {
    family,
    protocol,
    address: addressText(family, a.get(SVC.ADDR)),
    port: a.get(SVC.PORT)?.readUInt16BE(0) ?? 0,
    scheduler: readCString(a.get(SVC.SCHED_NAME)) ?? '',
    persistentSeconds: (flags & IP_VS_SVC_F_PERSISTENT) !== 0 ? (a.get(SVC.TIMEOUT)?.readUInt32LE(0) ?? 0) : 0,
  };
}

export function decodeDest(family: IpvsFamily, attributes: Map<number, Buffer>): ObservedRealServer | undefined {
  const dest = attributes.get(CMD_ATTR.DEST);
  if (dest === undefined) return undefined;
  const a = decodeAttributes(dest);
  const destFamily: IpvsFamily = a.has(DEST.ADDR_FAMILY)
    ? a.get(DEST.ADDR_FAMILY)?.readUInt16LE(0) === AF.IPv6
      ? 'IPv6'
      : 'IPv4'
    : family;
  return {
    address: addressText(destFamily, a.get(DEST.ADDR)),
    port: a.get(DEST.PORT)?.readUInt16BE(0) ?? 0,
    weight: a.get(DEST.WEIGHT)?.readUInt32LE(0) ?? 0,
    activeConnections: a.get(DEST.ACTIVE_CONNS)?.readUInt32LE(0) ?? 0,
    inactiveConnections: a.get(DEST.INACT_CONNS)?.readUInt32LE(0) ?? 0,
  };
}
