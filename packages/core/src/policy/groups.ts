import type { Protocol } from '../model/types.js';
import { namedPort } from './evaluate.js';
import type { PeerEndpoint, PeerGroup, PolicyPod, PolicyRule } from './types.js';

const PROTOCOL_ORDER: Readonly<Record<Protocol, number>> = { TCP: 0, UDP: 1, SCTP: 2 };

/**
 * A group's content from its member pods: their addresses, or for an egress rule's named-port
 * group (`named`), each member's address with the number of each named port of the rule it has.
 */
export function peerGroup(rule: PolicyRule, named: boolean, members: Iterable<PolicyPod>): PeerGroup {
  if (!named) {
    const ips = new Set<string>();
    for (const pod of members) for (const ip of pod.ips) ips.add(ip);
    return { kind: 'ips', ips: [...ips].sort() };
  }
  const ports = rule.ports.filter((port) => typeof port.port === 'string');
  const endpoints = new Map<string, PeerEndpoint>();
  for (const pod of members) {
    for (const port of ports) {
      const number = namedPort(pod, port.port as string, port.protocol);
      if (number === undefined) continue;
      for (const ip of pod.ips)
        endpoints.set(`${ip} ${port.protocol} ${number}`, { ip, protocol: port.protocol, port: number });
    }
  }
  return {
    kind: 'endpoints',
    endpoints: [...endpoints.values()].sort(
      (a, b) =>
        (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0) ||
        PROTOCOL_ORDER[a.protocol] - PROTOCOL_ORDER[b.protocol] ||
        a.port - b.port,
    ),
  };
}
