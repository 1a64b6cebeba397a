import type { Protocol } from '../model/types.js';
import { allPeerPods, type ResolvedPeers } from './peers.js';
import { matchesSelector } from './selector.js';
import type {
  AllowRule,
  DirectionPolicy,
  NetworkPolicyModel,
  PodPolicy,
  PolicyPod,
  PolicyPort,
  PolicyRule,
  PolicyType,
  PortRange,
} from './types.js';
import type { PolicyWorld } from './world.js';

/** Resolves the peers of `policy`'s rule `index` in `direction` (the view caches these). */
export type PeerResolver = (policy: NetworkPolicyModel, direction: PolicyType, index: number) => ResolvedPeers;

const ALL_PORTS = { first: 0, last: 65535 } as const;

function namedPort(pod: PolicyPod, name: string, protocol: Protocol): number | undefined {
  return pod.ports.find((port) => port.name === name && port.protocol === protocol)?.port;
}

function numericRange(port: PolicyPort): PortRange | undefined {
  if (port.port === undefined) return { protocol: port.protocol, port: ALL_PORTS.first, endPort: ALL_PORTS.last };
  if (typeof port.port !== 'number') return undefined;
  return { protocol: port.protocol, port: port.port, endPort: Math.max(port.port, port.endPort ?? port.port) };
}

function sortedUnique(values: Iterable<string>): readonly string[] {
  return [...new Set(values)].sort();
}

function peerAddresses(peers: ResolvedPeers): readonly string[] | undefined {
  if (peers.all) return undefined;
  return sortedUnique([...peers.pods.flatMap((pod) => pod.ips), ...peers.cidrs]);
}

/**
 * One rule as allow entries for `target`. Named ports resolve on the pod that receives the
 * traffic: the target for ingress, each destination pod for egress (ipBlock peers have no named
 * ports, so a named port never matches them). A rule whose ports or peers resolve to nothing
 * allows nothing.
 */
function ruleAllows(
  rule: PolicyRule,
  peers: ResolvedPeers,
  target: PolicyPod,
  direction: PolicyType,
  world: PolicyWorld,
): AllowRule[] {
  const addresses = peerAddresses(peers);
  if (addresses !== undefined && addresses.length === 0) return [];
  if (rule.ports.length === 0) return [addresses === undefined ? {} : { peers: addresses }];

  const ranges: PortRange[] = [];
  const named: PolicyPort[] = [];
  for (const port of rule.ports) {
    const range = numericRange(port);
    if (range !== undefined) ranges.push(range);
    else named.push(port);
  }
  if (direction === 'Ingress') {
    for (const port of named) {
      const number = namedPort(target, port.port as string, port.protocol);
      if (number !== undefined) ranges.push({ protocol: port.protocol, port: number, endPort: number });
    }
  }
  const allows: AllowRule[] = [];
  if (ranges.length > 0) allows.push(addresses === undefined ? { ports: ranges } : { peers: addresses, ports: ranges });
  if (direction === 'Egress' && named.length > 0) {
    const destinations = peers.all ? allPeerPods(world) : peers.pods;
    const byPort = new Map<string, { range: PortRange; ips: string[] }>();
    for (const port of named) {
      for (const pod of destinations) {
        const number = namedPort(pod, port.port as string, port.protocol);
        if (number === undefined) continue;
        const key = `${port.protocol}/${number}`;
        const group = byPort.get(key) ?? { range: { protocol: port.protocol, port: number, endPort: number }, ips: [] };
        group.ips.push(...pod.ips);
        byPort.set(key, group);
      }
    }
    for (const { range, ips } of byPort.values()) allows.push({ peers: sortedUnique(ips), ports: [range] });
  }
  return allows;
}

function directionPolicy(
  target: PolicyPod,
  direction: PolicyType,
  world: PolicyWorld,
  resolve: PeerResolver,
): DirectionPolicy {
  let isolated = false;
  const allow: AllowRule[] = [];
  for (const policy of world.policiesIn(target.namespace)) {
    if (!policy.policyTypes.includes(direction) || !matchesSelector(policy.podSelector, target.labels)) continue;
    isolated = true;
    const rules = direction === 'Ingress' ? policy.ingress : policy.egress;
    rules.forEach((rule, index) => {
      allow.push(...ruleAllows(rule, resolve(policy, direction, index), target, direction, world));
    });
  }
  return { isolated, allow };
}

/**
 * What every policy of its namespace says about `target`: per direction, isolated when at least
 * one policy of that type selects it, and then the union of those policies' rules (policies are
 * additive, their order is irrelevant).
 */
export function podPolicy(target: PolicyPod, world: PolicyWorld, resolve: PeerResolver): PodPolicy {
  return {
    namespace: target.namespace,
    name: target.name,
    ips: target.ips,
    ingress: directionPolicy(target, 'Ingress', world, resolve),
    egress: directionPolicy(target, 'Egress', world, resolve),
  };
}
