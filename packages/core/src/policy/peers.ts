import { ipBlockCIDRs } from './ip-block.js';
import { EVERYTHING, matchesSelector } from './selector.js';
import type { NetworkPolicyModel, PolicyPeer, PolicyPod, PolicyRule } from './types.js';
import { isPolicyPod, type PolicyWorld } from './world.js';

/** A rule's peers resolved against the cluster: every address, or these pods and CIDRs. */
export type ResolvedPeers =
  | { readonly all: true }
  | { readonly all: false; readonly pods: readonly PolicyPod[]; readonly cidrs: readonly string[] };

/** True when `peer` of a policy in `policyNamespace` selects `pod` (whose namespace has `namespaceLabels`). */
export function peerSelects(
  peer: PolicyPeer,
  policyNamespace: string,
  pod: PolicyPod,
  namespaceLabels: (name: string) => Readonly<Record<string, string>>,
): boolean {
  if (peer.ipBlock !== undefined || !isPolicyPod(pod)) return false;
  if (peer.namespaceSelector === undefined) {
    if (pod.namespace !== policyNamespace) return false;
  } else if (!matchesSelector(peer.namespaceSelector, namespaceLabels(pod.namespace))) return false;
  return matchesSelector(peer.podSelector ?? EVERYTHING, pod.labels);
}

function* candidatePods(peer: PolicyPeer, policyNamespace: string, world: PolicyWorld): Iterable<PolicyPod> {
  if (peer.namespaceSelector === undefined) {
    yield* world.podsIn(policyNamespace);
    return;
  }
  for (const namespace of world.podNamespaces()) {
    if (matchesSelector(peer.namespaceSelector, world.namespaceLabels(namespace))) yield* world.podsIn(namespace);
  }
}

/** The pods and CIDRs a rule's `from`/`to` list names (every address when the list is absent). */
export function resolvePeers(policy: NetworkPolicyModel, rule: PolicyRule, world: PolicyWorld): ResolvedPeers {
  if (rule.peers === undefined) return { all: true };
  const pods = new Map<string, PolicyPod>();
  const cidrs = new Set<string>();
  for (const peer of rule.peers) {
    if (peer.ipBlock !== undefined) {
      for (const cidr of ipBlockCIDRs(peer.ipBlock)) cidrs.add(cidr);
      continue;
    }
    const podSelector = peer.podSelector ?? EVERYTHING;
    for (const pod of candidatePods(peer, policy.namespace, world)) {
      if (isPolicyPod(pod) && matchesSelector(podSelector, pod.labels)) pods.set(`${pod.namespace}/${pod.name}`, pod);
    }
  }
  return { all: false, pods: [...pods.values()], cidrs: [...cidrs] };
}

/** Every pod of the cluster that can be a peer (for named ports of a rule open to every peer). */
export function allPeerPods(world: PolicyWorld): readonly PolicyPod[] {
  const pods: PolicyPod[] = [];
  for (const namespace of world.podNamespaces()) {
    for (const pod of world.podsIn(namespace)) if (isPolicyPod(pod)) pods.push(pod);
  }
  return pods;
}

/**
 * True when `pod` belongs to the group of `rule` (every peer pod when the rule names no peer: only
 * an egress rule's named-port group has that form).
 */
export function ruleSelectsPod(
  policy: NetworkPolicyModel,
  rule: PolicyRule,
  pod: PolicyPod,
  namespaceLabels: (name: string) => Readonly<Record<string, string>>,
): boolean {
  if (rule.peers === undefined) return isPolicyPod(pod);
  return rule.peers.some((peer) => peerSelects(peer, policy.namespace, pod, namespaceLabels));
}

/** Every pod of `rule`'s group, resolved against the cluster. */
export function groupPods(policy: NetworkPolicyModel, rule: PolicyRule, world: PolicyWorld): readonly PolicyPod[] {
  const peers = resolvePeers(policy, rule, world);
  return peers.all ? allPeerPods(world) : peers.pods;
}
