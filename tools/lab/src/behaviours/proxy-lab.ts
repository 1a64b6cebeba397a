/**
 * The lab every proxy backend's kernel e2e uses: local pods pod-a/pod-b, remote pods pod-c/pod-d,
 * an echo server on each, and a node default route (as a real node has: without it, traffic to a
 * Service address that is not NATed dies in routing before the proxy can reject or drop it).
 * Addresses of Services and clients by the names the behaviour table uses.
 */
import type { NetworkNamespace } from '../netns/namespace.js';
import { Lab } from '../netns/lab.js';

export const LAB_PODS = { pods: ['pod-a', 'pod-b'], remotePods: ['pod-c', 'pod-d'] } as const;
export const ECHO_PORT = 8080;
/** Every pod's echo server also holds TCP connections open on this port (`lab.hold`). */
export const HOLD_PORT = 9090;

export type LabFamily = 'IPv4' | 'IPv6';
/** A pod by letter, the node itself, or the external client. */
export type Client = 'a' | 'b' | 'c' | 'd' | 'host' | 'external';

export const EXTERNAL_CLIENT = { IPv4: '203.0.113.2', IPv6: '2001:db8:ee::2' } as const;
const POD_IPS = {
  a: { IPv4: '198.18.1.10', IPv6: '2001:db8:1::10' },
  b: { IPv4: '198.18.1.11', IPv6: '2001:db8:1::11' },
  c: { IPv4: '198.18.2.10', IPv6: '2001:db8:2::10' },
  d: { IPv4: '198.18.2.11', IPv6: '2001:db8:2::11' },
} as const;

export async function createProxyLab(): Promise<Lab> {
  const lab = await Lab.create({ ...LAB_PODS, nodeDefaultRoute: true });
  try {
    await Promise.all(lab.pods.map((pod) => lab.startEcho(pod.name, [ECHO_PORT], { holdPorts: [HOLD_PORT] })));
    return lab;
  } catch (error) {
    await lab.delete();
    throw error;
  }
}

/**
 * `cluster:N` (198.19.0.N, 2001:db8:5e::N in hex, as core's `clusterIPs(N)`), `external:N`
 * (203.0.113.N, 2001:db8:eb::N, as `externalIPs(N)`), `node`, or `localhost`, in one family.
 */
export function destination(lab: Lab, family: LabFamily, to: string): string {
  const v4 = family === 'IPv4';
  const [kind, n] = to.split(':');
  const hex = Number(n).toString(16);
  if (kind === 'cluster') return v4 ? `198.19.0.${Number(n)}` : `2001:db8:5e::${hex}`;
  if (kind === 'external') return v4 ? `203.0.113.${Number(n)}` : `2001:db8:eb::${hex}`;
  if (to === 'node') return v4 ? lab.node.ipv4 : lab.node.ipv6;
  if (to === 'localhost') return v4 ? '127.0.0.1' : '::1';
  throw new Error(`bad destination ${to}`);
}

export function clientNamespace(lab: Lab, from: Client): NetworkNamespace {
  if (from === 'host') return lab.node.namespace;
  if (from === 'external') return lab.external.namespace;
  return lab.pod(`pod-${from}`).namespace;
}

/** The client's own address (what an endpoint sees unless masqueraded); undefined for the node. */
export function clientAddress(family: LabFamily, from: Client): string | undefined {
  if (from === 'external') return EXTERNAL_CLIENT[family];
  if (from === 'host') return undefined;
  return POD_IPS[from][family];
}

/** Polls (bounded: 60 probes, 250 ms apart) until `pod` answers `ip:port` from `from`; the last answer. */
export async function waitForServer(
  lab: Lab,
  from: NetworkNamespace,
  ip: string,
  port: number,
  pod: string,
): Promise<string | undefined> {
  let last: string | undefined;
  for (let i = 0; i < 60; i++) {
    const result = await lab.probe(from, { proto: 'tcp', ip, port, timeoutMs: 500 });
    last = result.server ?? result.error;
    if (last === pod) return last;
    await new Promise((r) => setTimeout(r, 250));
  }
  return last;
}
