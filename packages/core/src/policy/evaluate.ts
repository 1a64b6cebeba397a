import type { Protocol } from '../model/types.js';
import { ipBlockCIDRs } from './ip-block.js';
import { matchesSelector } from './selector.js';
import {
  peerGroupKey,
  policyKey,
  type AllowPeers,
  type AllowRule,
  type DirectionPolicy,
  type NetworkPolicyModel,
  type PodPolicy,
  type PolicyPod,
  type PolicyPort,
  type PolicyRule,
  type PolicyType,
  type PortRange,
} from './types.js';
import type { PolicyWorld } from './world.js';

const ALL_PORTS = { first: 0, last: 65535 } as const;

/** The number of `pod`'s container port `name` for `protocol`, if it has one. */
export function namedPort(pod: PolicyPod, name: string, protocol: Protocol): number | undefined {
  return pod.ports.find((port) => port.name === name && port.protocol === protocol)?.port;
}

function numericRange(port: PolicyPort): PortRange | undefined {
  if (port.port === undefined) return { protocol: port.protocol, port: ALL_PORTS.first, endPort: ALL_PORTS.last };
  if (typeof port.port !== 'number') return undefined;
  return { protocol: port.protocol, port: port.port, endPort: Math.max(port.port, port.endPort ?? port.port) };
}

/** True when a rule names pods (a pod or namespace selector), not only ipBlocks. */
export function ruleNamesPods(rule: PolicyRule): boolean {
  return rule.peers !== undefined && rule.peers.some((peer) => peer.ipBlock === undefined);
}

function rulePeers(policy: NetworkPolicyModel, rule: PolicyRule, direction: PolicyType, index: number) {
  if (rule.peers === undefined) return undefined;
  const cidrs = [
    ...new Set(rule.peers.flatMap((peer) => (peer.ipBlock === undefined ? [] : ipBlockCIDRs(peer.ipBlock)))),
  ].sort();
  const peers: AllowPeers = ruleNamesPods(rule)
    ? { group: peerGroupKey(policyKey(policy.namespace, policy.name), direction, index), cidrs }
    : { cidrs };
  return peers;
}

/**
 * Rule `index` of `policy` as allow entries for `target`. The pods a rule's selectors name are a
 * peer group (by key: the view resolves groups once for every target). Named ports resolve on the
 * pod that receives the traffic: the target for ingress (a port it lacks allows nothing), each
 * destination pod for egress (the rule's named-port group; ipBlock peers have no named ports).
 */
function ruleAllows(
  policy: NetworkPolicyModel,
  rule: PolicyRule,
  index: number,
  target: PolicyPod,
  direction: PolicyType,
): AllowRule[] {
  const peers = rulePeers(policy, rule, direction, index);
  if (rule.ports.length === 0) return [peers === undefined ? {} : { peers }];

  const ranges: PortRange[] = [];
  let named = false;
  for (const port of rule.ports) {
    const range = numericRange(port);
    if (range !== undefined) ranges.push(range);
    else if (direction === 'Egress') named = true;
    else {
      const number = namedPort(target, port.port as string, port.protocol);
      if (number !== undefined) ranges.push({ protocol: port.protocol, port: number, endPort: number });
    }
  }
  const allows: AllowRule[] = [];
  if (ranges.length > 0) allows.push(peers === undefined ? { ports: ranges } : { peers, ports: ranges });
  if (named && (rule.peers === undefined || ruleNamesPods(rule)))
    allows.push({ endpoints: peerGroupKey(policyKey(policy.namespace, policy.name), direction, index, true) });
  return allows;
}

function directionPolicy(target: PolicyPod, direction: PolicyType, world: PolicyWorld): DirectionPolicy {
  let isolated = false;
  const allow: AllowRule[] = [];
  for (const policy of world.policiesIn(target.namespace)) {
    if (!policy.policyTypes.includes(direction) || !matchesSelector(policy.podSelector, target.labels)) continue;
    isolated = true;
    const rules = direction === 'Ingress' ? policy.ingress : policy.egress;
    rules.forEach((rule, index) => allow.push(...ruleAllows(policy, rule, index, target, direction)));
  }
  return { isolated, allow };
}

/**
 * What every policy of its namespace says about `target`: per direction, isolated when at least
 * one policy of that type selects it, and then the union of those policies' rules (policies are
 * additive, their order is irrelevant). Peer pods are named by group, not listed: the target's
 * policy does not change when a peer does.
 */
export function podPolicy(target: PolicyPod, world: PolicyWorld): PodPolicy {
  return {
    namespace: target.namespace,
    name: target.name,
    ips: target.ips,
    ingress: directionPolicy(target, 'Ingress', world),
    egress: directionPolicy(target, 'Egress', world),
  };
}
