/**
 * Chain names exactly as upstream kube-proxy's iptables mode derives them, so runbooks,
 * `iptables-save | grep` habits and dashboards keep working: a prefix plus the first 16
 * characters of base32(SHA-256(servicePortName + protocol [+ endpoint])).
 */
import { hash } from 'node:crypto';
import type { LocalEndpoint, LocalService, LocalServicePort } from '@kpng/core';

/** Top-level chains (fixed names). */
export const CHAIN = {
  services: 'KUBE-SERVICES',
  externalServices: 'KUBE-EXTERNAL-SERVICES',
  nodePorts: 'KUBE-NODEPORTS',
  forward: 'KUBE-FORWARD',
  postrouting: 'KUBE-POSTROUTING',
  markMasq: 'KUBE-MARK-MASQ',
  proxyFirewall: 'KUBE-PROXY-FIREWALL',
  firewall: 'KUBE-FIREWALL',
  canary: 'KUBE-PROXY-CANARY',
} as const;

/** Per-service chain prefixes; anything else starting with `KUBE-` is left alone by sweeps. */
export const SERVICE_CHAIN = /^KUBE-(SVC|SVL|EXT|FW|SEP)-[A-Z2-7]{16}$/;

const BASE32_CODES = Uint8Array.from('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', (ch) => ch.charCodeAt(0));

/**
 * The first 16 characters of RFC 4648 base32 (Go's base32.StdEncoding) of a digest given as a
 * latin1 string (one char per byte): 16 characters are the first 80 bits, bytes 0-9.
 */
function base32Of80Bits(digest: string): string {
  const byte = (i: number): number => digest.charCodeAt(i);
  const hi = ((byte(0) << 24) | (byte(1) << 16) | (byte(2) << 8) | byte(3)) >>> 0;
  const mid = ((byte(4) << 24) | (byte(5) << 16) | (byte(6) << 8) | byte(7)) >>> 0;
  const lo = (byte(8) << 8) | byte(9);
  const c = (v: number): number => BASE32_CODES[v & 31] as number;
  // One string from 16 char codes: 15 concatenations made a rope per endpoint (100k at s10k).
  return String.fromCharCode(
    c(hi >>> 27),
    c(hi >>> 22),
    c(hi >>> 17),
    c(hi >>> 12),
    c(hi >>> 7),
    c(hi >>> 2),
    c(((hi & 3) << 3) | (mid >>> 29)),
    c(mid >>> 24),
    c(mid >>> 19),
    c(mid >>> 14),
    c(mid >>> 9),
    c(mid >>> 4),
    c(((mid & 15) << 1) | (lo >>> 15)),
    c(lo >>> 10),
    c(lo >>> 5),
    c(lo),
  );
}

function hash16(text: string): string {
  // One-shot hash with a latin1 ('binary') digest: a Buffer per call costs more than the hash itself, and
  // there is one per endpoint (100k at s10k).
  return base32Of80Bits(hash('sha256', text, 'binary'));
}

/** kube-proxy's ServicePortName.String(): `ns/name` or `ns/name:portName`. */
export function servicePortName(svc: LocalService, port: LocalServicePort): string {
  return port.name === '' ? `${svc.namespace}/${svc.name}` : `${svc.namespace}/${svc.name}:${port.name}`;
}

export interface ServicePortChains {
  readonly cluster: string;
  readonly local: string;
  readonly external: string;
  readonly firewall: string;
}

export function servicePortChains(portName: string, port: LocalServicePort): ServicePortChains {
  const h = hash16(portName + port.protocol.toLowerCase());
  return { cluster: `KUBE-SVC-${h}`, local: `KUBE-SVL-${h}`, external: `KUBE-EXT-${h}`, firewall: `KUBE-FW-${h}` };
}

/** `ip:port`, `[ip6]:port` (Go's net.JoinHostPort), as upstream's endpoint String(). */
export function endpointString(ep: LocalEndpoint): string {
  return ep.ip.includes(':') ? `[${ep.ip}]:${ep.port}` : `${ep.ip}:${ep.port}`;
}

export function endpointChain(portName: string, port: LocalServicePort, ep: LocalEndpoint): string {
  return `KUBE-SEP-${hash16(portName + port.protocol.toLowerCase() + endpointString(ep))}`;
}

/** The nfacct counter of packets KUBE-FORWARD drops in conntrack state INVALID (upstream's name). */
export const NFACCT_INVALID_DROPPED = 'ct_state_invalid_dropped_pkts';
/** The nfacct counter of IPv4 NodePort packets to 127.0.0.0/8 accepted (upstream's name). */
export const NFACCT_LOCALHOST_NODEPORTS = 'localhost_nps_accepted_pkts';
