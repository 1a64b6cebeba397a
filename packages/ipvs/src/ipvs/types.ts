/**
 * IPVS objects as the backend and the kernel seam see them. A virtual server is identified by
 * (family, protocol, address, port); a real server by its address and port inside one virtual server.
 */
export type IpvsProtocol = 'TCP' | 'UDP' | 'SCTP';
export type IpvsFamily = 'IPv4' | 'IPv6';

export interface VirtualServer {
  readonly family: IpvsFamily;
  readonly protocol: IpvsProtocol;
  /** Canonical text form. */
  readonly address: string;
  readonly port: number;
  /** `rr`, `wrr`, `lc`, `sh`, ... (kernel module `ip_vs_<name>`). */
  readonly scheduler: string;
  /** ClientIP affinity: the persistence timeout in seconds; 0 = not persistent. */
  readonly persistentSeconds: number;
}

export interface RealServer {
  readonly address: string;
  readonly port: number;
  /** 0 = quiesced: no new connections, existing ones continue (graceful termination). */
  readonly weight: number;
}

/** A real server as the kernel reports it, with its connection counters. */
export interface ObservedRealServer extends RealServer {
  readonly activeConnections: number;
  readonly inactiveConnections: number;
}

/** `TCP/198.19.0.1/80`, `UDP/[2001:db8::1]/53`: the identity of a virtual server. */
export type VirtualServerKey = string & { readonly __brand: 'VirtualServerKey' };

export function virtualServerKey(vs: Pick<VirtualServer, 'protocol' | 'address' | 'port'>): VirtualServerKey {
  return `${vs.protocol}/${vs.address.includes(':') ? `[${vs.address}]` : vs.address}/${vs.port}` as VirtualServerKey;
}

export function realServerKey(rs: Pick<RealServer, 'address' | 'port'>): string {
  return `${rs.address.includes(':') ? `[${rs.address}]` : rs.address}:${rs.port}`;
}
