import type { Protocol } from '../model/types.js';
import { cidrContains } from '../util/ip.js';
import type { AllowRule, DirectionPolicy, PeerGroup, PeerGroupKey } from './types.js';

/** One connection as the policy judges it: the peer's address, the protocol and destination port. */
export interface Connection {
  readonly peer: string;
  readonly protocol: Protocol | 'ICMP';
  /** 0 for ICMP. */
  readonly port: number;
}

type Groups = ReadonlyMap<PeerGroupKey, PeerGroup>;

function inGroup(groups: Groups, key: PeerGroupKey, peer: string): boolean {
  const group = groups.get(key);
  return group?.kind === 'ips' && group.ips.includes(peer);
}

function peerMatches(rule: AllowRule, peer: string, groups: Groups): boolean {
  if (rule.peers === undefined) return true;
  const { group, cidrs } = rule.peers;
  return (group !== undefined && inGroup(groups, group, peer)) || cidrs.some((cidr) => cidrContains(cidr, peer));
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

function ruleMatches(rule: AllowRule, connection: Connection, groups: Groups): boolean {
  if (rule.endpoints !== undefined) {
    const group = groups.get(rule.endpoints);
    return (
      group?.kind === 'endpoints' &&
      group.endpoints.some(
        (e) => e.ip === connection.peer && e.protocol === connection.protocol && e.port === connection.port,
      )
    );
  }
  return peerMatches(rule, connection.peer, groups) && portMatches(rule, connection);
}

/**
 * The verdict a direction's policy gives a new connection: allowed when the pod is not isolated,
 * or when one allow rule matches both peer and port (its groups looked up in `groups`, the state's).
 * The reference an enforcer is tested against.
 */
export function allowsConnection(policy: DirectionPolicy, connection: Connection, groups: Groups): boolean {
  return !policy.isolated || policy.allow.some((rule) => ruleMatches(rule, connection, groups));
}
