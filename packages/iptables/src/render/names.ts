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

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 (Go's base32.StdEncoding) of the first bytes needed for `chars` characters. */
function base32(bytes: Uint8Array, chars: number): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < chars) {
      out += BASE32[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
    if (out.length >= chars) break;
  }
  return out;
}

function hash16(text: string): string {
  // One-shot hash: a third of createHash().update().digest()'s cost, and one per endpoint adds up at 10k Services.
  return base32(hash('sha256', text, 'buffer'), 16);
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
