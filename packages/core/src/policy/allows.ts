import type { Protocol } from '../model/types.js';
import { cidrContains } from '../util/ip.js';
import type { AllowRule, DirectionPolicy } from './types.js';

/** One connection as the policy judges it: the peer's address, the protocol and destination port. */
export interface Connection {
  readonly peer: string;
  readonly protocol: Protocol | 'ICMP';
  /** 0 for ICMP. */
  readonly port: number;
}

function peerMatches(rule: AllowRule, peer: string): boolean {
  return (
    rule.peers === undefined ||
    rule.peers.some((entry) => (entry.includes('/') ? cidrContains(entry, peer) : entry === peer))
  );
}

function portMatches(rule: AllowRule, connection: Connection): boolean {
  return (
    rule.ports === undefined ||
    rule.ports.some(
      (range) =>
        range.protocol === connection.protocol && connection.port >= range.port && connection.port <= range.endPort,
    )
  );
}

/**
 * The verdict a direction's policy gives a new connection: allowed when the pod is not isolated,
 * or when one allow rule matches both peer and port. The reference an enforcer is tested against.
 */
export function allowsConnection(policy: DirectionPolicy, connection: Connection): boolean {
  return (
    !policy.isolated || policy.allow.some((rule) => peerMatches(rule, connection.peer) && portMatches(rule, connection))
  );
}
