import { formatIP, isAffinityTimeout, isCanonicalIP, isObjectName, isPort, parseIP } from '@kpng/core';
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

/**
 * A value the encoder refuses to put in a netlink message (core's render guard leaves such values
 * out before they get here: this is the last line, so a bug cannot send the kernel a garbled address).
 */
export class IpvsEncodeError extends Error {
  constructor(field: string, value: unknown) {
    super(`IPVS netlink message refused: bad ${field} ${(JSON.stringify(value) ?? String(value)).slice(0, 80)}`);
    this.name = 'IpvsEncodeError';
  }
}

function checkedFamily(family: IpvsFamily): number {
  const af = AF[family];
  if (!Object.hasOwn(AF, family) || af === undefined) throw new IpvsEncodeError('family', family);
  return af;
}

function checkedProtocol(protocol: IpvsProtocol): number {
  const number = PROTO[protocol];
  if (!Object.hasOwn(PROTO, protocol) || number === undefined) throw new IpvsEncodeError('protocol', protocol);
  return number;
}

function checkedPort(port: number): Buffer {
  if (!isPort(port)) throw new IpvsEncodeError('port', port);
  return be16(port);
}

/** The identifying attributes: all DEL_SERVICE and the dest commands need. */
export function serviceId(vs: Pick<VirtualServer, 'family' | 'protocol' | 'address' | 'port'>): Attribute {
  return nested(CMD_ATTR.SERVICE, identity(vs));
}

/** NEW/SET_SERVICE need the full entry: scheduler, flags, timeout and netmask too (else EINVAL). */
export function serviceFull(vs: VirtualServer): Attribute {
  if (vs.persistentSeconds !== 0 && !isAffinityTimeout(vs.persistentSeconds))
    throw new IpvsEncodeError('persistence timeout', vs.persistentSeconds);
  // IP_VS_SCHEDNAME_MAXLEN is 16 with the NUL.
  if (!isObjectName(vs.scheduler, 15)) throw new IpvsEncodeError('scheduler', vs.scheduler);
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
    [DEST.PORT, checkedPort(rs.port)],
  ]);
}

export function destFull(vs: VirtualServer, rs: RealServer): Attribute {
  if (!Number.isInteger(rs.weight) || rs.weight < 0 || rs.weight > 65535)
    throw new IpvsEncodeError('weight', rs.weight);
  return nested(CMD_ATTR.DEST, [
    [DEST.ADDR, address(rs.address, vs.family)],
    [DEST.PORT, checkedPort(rs.port)],
    [DEST.FWD_METHOD, u32(FWD_MASQ)],
    [DEST.WEIGHT, u32(rs.weight)],
    [DEST.U_THRESH, u32(0)],
    [DEST.L_THRESH, u32(0)],
    [DEST.ADDR_FAMILY, u16(checkedFamily(vs.family))],
  ]);
}

function identity(vs: Pick<VirtualServer, 'family' | 'protocol' | 'address' | 'port'>): Attribute[] {
  return [
    [SVC.AF, u16(checkedFamily(vs.family))],
    [SVC.PROTOCOL, u16(checkedProtocol(vs.protocol))],
    [SVC.ADDR, address(vs.address, vs.family)],
    [SVC.PORT, checkedPort(vs.port)],
  ];
}

/** `union nf_inet_addr`: 16 bytes, IPv4 in the first four; only a canonical address (of `family` when given). */
function address(ip: string, family?: IpvsFamily): Buffer {
  const parsed = isCanonicalIP(ip, family) ? parseIP(ip) : undefined;
  if (parsed === undefined) throw new IpvsEncodeError('address', ip);
  const out = Buffer.alloc(16);
  out.set(parsed.bytes);
  return out;
}

function addressText(family: IpvsFamily, buf: Buffer | undefined): string {
  if (buf === undefined) return '';
  return formatIP({ family, bytes: [...buf.subarray(0, family === 'IPv4' ? 4 : 16)] });
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

// The counters `ipvsadm -Ln --stats` prints (IPVS_SVC_ATTR_STATS64 / IPVS_DEST_ATTR_STATS64 since
// Linux 4.1, else the 32-bit IPVS_*_ATTR_STATS): both nest IPVS_STATS_ATTR_*.
const SVC_STATS = { STATS: 10, STATS64: 12 } as const;
const DEST_STATS = { STATS: 10, STATS64: 12 } as const;
const STATS_ATTR = { CONNS: 1, INPKTS: 2, OUTPKTS: 3, INBYTES: 4, OUTBYTES: 5 } as const;

/** A virtual or real server's counters since it was added. */
export interface IpvsStats {
  readonly connections: number;
  readonly packetsIn: number;
  readonly packetsOut: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
}

function counter(attributes: Map<number, Buffer>, type: number): number {
  const value = attributes.get(type);
  if (value === undefined) return 0;
  if (value.length >= 8) return Number(value.readBigUInt64LE(0));
  return value.length >= 4 ? value.readUInt32LE(0) : 0;
}

function decodeStats(
  outer: Buffer | undefined,
  kinds: { readonly STATS: number; readonly STATS64: number },
): IpvsStats | undefined {
  if (outer === undefined) return undefined;
  const a = decodeAttributes(outer);
  const nested = a.get(kinds.STATS64) ?? a.get(kinds.STATS);
  if (nested === undefined) return undefined;
  const s = decodeAttributes(nested);
  return {
    connections: counter(s, STATS_ATTR.CONNS),
    packetsIn: counter(s, STATS_ATTR.INPKTS),
    packetsOut: counter(s, STATS_ATTR.OUTPKTS),
    bytesIn: counter(s, STATS_ATTR.INBYTES),
    bytesOut: counter(s, STATS_ATTR.OUTBYTES),
  };
}

/** The counters of a GET_SERVICE answer, when the kernel sent them. */
export function decodeServiceStats(attributes: Map<number, Buffer>): IpvsStats | undefined {
  return decodeStats(attributes.get(CMD_ATTR.SERVICE), SVC_STATS);
}

/** The counters of a GET_DEST answer, when the kernel sent them. */
export function decodeDestStats(attributes: Map<number, Buffer>): IpvsStats | undefined {
  return decodeStats(attributes.get(CMD_ATTR.DEST), DEST_STATS);
}
