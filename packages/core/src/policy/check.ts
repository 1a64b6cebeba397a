/**
 * The policy view as it arrives over the node-local stream (`--connect`), checked before an
 * enforcer renders it: addresses and CIDRs canonical (they reach `nft`'s input), ports in range,
 * protocols known, keys of the shape the view writes, every group a rule names present, and lists
 * bounded. Linear in the view; a view that fails is refused whole with the state.
 */
import { canonicalCIDR, canonicalIP } from '../util/ip.js';
import { OBJECT_LIMITS } from '../watch/convert/limits.js';
import { nameProblem } from '../watch/convert/names.js';
import type { DirectionPolicy, PeerGroup, PeerGroupKey, PodPolicy, PolicyState } from './types.js';

const PROTOCOLS: readonly unknown[] = ['TCP', 'UDP', 'SCTP'];
const MAX_PROBLEMS = 10;
const GROUP_KEY =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/(Ingress|Egress)\/\d{1,6}(\/named)?$/;

class Problems {
  readonly list: string[] = [];
  add(path: string, problem: string): void {
    if (this.list.length < MAX_PROBLEMS) this.list.push(`${path}: ${problem}`);
  }
  bounded(value: readonly unknown[], path: string): boolean {
    if (value.length <= OBJECT_LIMITS.listEntries) return true;
    this.add(path, `must have at most ${OBJECT_LIMITS.listEntries} entries, got ${value.length}`);
    return false;
  }
  ip(value: unknown, path: string): void {
    if (typeof value !== 'string' || canonicalIP(value) !== value)
      this.add(path, 'must be an IP address in canonical form');
  }
  port(value: unknown, path: string, min: number): void {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > 65535)
      this.add(path, `must be an integer between ${min} and 65535`);
  }
  protocol(value: unknown, path: string): void {
    if (!PROTOCOLS.includes(value)) this.add(path, 'must be TCP, UDP or SCTP');
  }
  group(value: unknown, path: string, groups: ReadonlyMap<PeerGroupKey, PeerGroup>): void {
    if (typeof value !== 'string' || !GROUP_KEY.test(value)) return this.add(path, 'must be a peer group key');
    if (!groups.has(value as PeerGroupKey)) this.add(path, 'names a peer group the state does not hold');
  }
}

/** Why a pod's policy is not one the view could have built; empty when it is. */
export function podPolicyProblems(pod: PodPolicy, groups: ReadonlyMap<PeerGroupKey, PeerGroup>): readonly string[] {
  const p = new Problems();
  for (const [what, value] of [
    ['namespace', pod.namespace],
    ['name', pod.name],
  ] as const) {
    const problem = typeof value === 'string' ? nameProblem(value, 'subdomain') : 'must be a string';
    if (problem !== undefined) p.add(what, problem);
  }
  if (p.bounded(pod.ips, 'ips')) pod.ips.forEach((ip, i) => p.ip(ip, `ips[${i}]`));
  direction(p, pod.ingress, 'ingress', groups);
  direction(p, pod.egress, 'egress', groups);
  return p.list;
}

function direction(p: Problems, d: DirectionPolicy, at: string, groups: ReadonlyMap<PeerGroupKey, PeerGroup>): void {
  if (!p.bounded(d.allow, `${at}.allow`)) return;
  d.allow.forEach((rule, i) => {
    const path = `${at}.allow[${i}]`;
    if (rule.endpoints !== undefined) p.group(rule.endpoints, `${path}.endpoints`, groups);
    if (rule.peers !== undefined) {
      if (rule.peers.group !== undefined) p.group(rule.peers.group, `${path}.peers.group`, groups);
      if (p.bounded(rule.peers.cidrs, `${path}.peers.cidrs`))
        rule.peers.cidrs.forEach((cidr, j) => {
          if (typeof cidr !== 'string' || canonicalCIDR(cidr) !== cidr)
            p.add(`${path}.peers.cidrs[${j}]`, 'must be a CIDR in canonical form');
        });
    }
    if (rule.ports !== undefined && p.bounded(rule.ports, `${path}.ports`))
      rule.ports.forEach((range, j) => {
        p.protocol(range.protocol, `${path}.ports[${j}].protocol`);
        p.port(range.port, `${path}.ports[${j}].port`, 0);
        p.port(range.endPort, `${path}.ports[${j}].endPort`, 0);
        if (range.endPort < range.port) p.add(`${path}.ports[${j}]`, 'endPort must not be below port');
      });
  });
}

/** Why a peer group is not one the view could have built; empty when it is. */
export function peerGroupProblems(key: PeerGroupKey, group: PeerGroup): readonly string[] {
  const p = new Problems();
  if (!GROUP_KEY.test(key)) p.add('key', 'must be a peer group key');
  if (group.kind === 'ips') {
    if (key.endsWith('/named')) p.add('key', 'a named-port group holds endpoints');
    if (p.bounded(group.ips, 'ips')) group.ips.forEach((ip, i) => p.ip(ip, `ips[${i}]`));
  } else {
    if (!key.endsWith('/named')) p.add('key', 'only a named-port group holds endpoints');
    if (p.bounded(group.endpoints, 'endpoints'))
      group.endpoints.forEach((e, i) => {
        p.ip(e.ip, `endpoints[${i}].ip`);
        p.protocol(e.protocol, `endpoints[${i}].protocol`);
        p.port(e.port, `endpoints[${i}].port`, 1);
      });
  }
  return p.list;
}

/** A policy view's refusals: each pod and group with its problems (`checked` skips objects already passed). */
export function policyStateRefusals(
  state: PolicyState,
  checked?: WeakSet<object>,
): readonly { readonly kind: 'Pod' | 'NetworkPolicy'; readonly where: string; readonly problems: readonly string[] }[] {
  const refusals: { kind: 'Pod' | 'NetworkPolicy'; where: string; problems: readonly string[] }[] = [];
  for (const [what, size] of [
    ['Pod', state.pods.size],
    ['NetworkPolicy', state.groups.size],
  ] as const)
    if (size > OBJECT_LIMITS.listEntries)
      return [
        { kind: what, where: '(state)', problems: [`must have at most ${OBJECT_LIMITS.listEntries}, got ${size}`] },
      ];
  for (const [key, group] of state.groups) {
    if (checked?.has(group)) continue;
    const problems = peerGroupProblems(key, group);
    if (problems.length > 0) refusals.push({ kind: 'NetworkPolicy', where: `peer group ${key}`, problems });
    else checked?.add(group);
  }
  for (const [key, pod] of state.pods) {
    // A pod object is checked against the groups of its state: an unchanged pod whose group went is refused.
    const problems = [
      ...(key === `${pod.namespace}/${pod.name}` ? [] : ['key: must be namespace/name']),
      ...podPolicyProblems(pod, state.groups),
    ];
    if (problems.length > 0) refusals.push({ kind: 'Pod', where: key, problems });
  }
  return refusals;
}
