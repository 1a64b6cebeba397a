import type { PeerCertificate } from 'node:tls';

/** A node name as the API server accepts one: a DNS subdomain (RFC 1123), at most 253 characters. */
const NODE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** The subject common name of a kubelet's client certificate: `system:node:NAME` (organisation `system:nodes`). */
const KUBELET_CN_PREFIX = 'system:node:';

function isNodeName(s: string): boolean {
  return s.length > 0 && s.length <= 253 && NODE_NAME.test(s);
}

/**
 * The node names a client certificate vouches for: each DNS subjectAltName that is a valid node
 * name, and NAME from a subject CN `system:node:NAME` (as in the kubelet's client certificates,
 * which carry no SAN). Anything else (IP or URI SANs, an other CN, a quoted or escaped SAN entry)
 * names no node. Empty for no certificate.
 */
export function certificateNodeNames(cert: PeerCertificate | undefined): readonly string[] {
  if (!cert) return [];
  const names = new Set<string>();
  const cn: unknown = cert.subject?.CN;
  // A subject with several CNs comes as an array: ambiguous, so none counts.
  if (typeof cn === 'string' && cn.startsWith(KUBELET_CN_PREFIX)) {
    const name = cn.slice(KUBELET_CN_PREFIX.length);
    if (isNodeName(name)) names.add(name);
  }
  // Node's rendering: `DNS:a, DNS:b, IP Address:1.2.3.4`; an entry holding `,` or `"` is quoted
  // (`DNS:"a,b"`), and never a valid node name anyway.
  for (const entry of (cert.subjectaltname ?? '').split(', ')) {
    if (entry.startsWith('DNS:') && isNodeName(entry.slice(4))) names.add(entry.slice(4));
  }
  return [...names];
}

/** Why a Watch call's node identity was refused (logged; the metric counts them as `node_identity`). */
export type NodeIdentityProblem =
  | 'the client certificate names no node'
  | 'the request names no node'
  | 'the request names a node the client certificate does not';

/** `undefined` when `requested` is one of the names the certificate vouches for. */
export function nodeIdentityProblem(certified: readonly string[], requested: string): NodeIdentityProblem | undefined {
  if (certified.length === 0) return 'the client certificate names no node';
  if (requested === '') return 'the request names no node';
  return certified.includes(requested) ? undefined : 'the request names a node the client certificate does not';
}
