import { podPolicy } from './evaluate.js';
import { peerGroup } from './groups.js';
import { groupPods, ruleSelectsPod } from './peers.js';
import { matchesSelector } from './selector.js';
import {
  podKey,
  policyKey,
  type Labels,
  type NetworkPolicyModel,
  type PeerGroup,
  type PeerGroupKey,
  type PodKey,
  type PodPolicy,
  type PolicyKey,
  type PolicyNamespace,
  type PolicyPod,
  type PolicyRule,
  type PolicyState,
} from './types.js';
import { isPolicyPod, type PolicyWorld } from './world.js';

/** The result of `PolicyView.state()`: the full state and what changed since the previous one. */
export interface PolicyUpdate {
  readonly state: PolicyState;
  /** Local pods recomputed (added, changed or removed) since the previous `state()`. */
  readonly changed: readonly PodKey[];
  /** Peer groups whose content changed, or that appeared, since the previous `state()`. */
  readonly changedGroups: readonly PeerGroupKey[];
}

const NO_LABELS: Labels = {};

/** A peer group the last state named, kept up to date member by member. */
interface GroupEntry {
  readonly policy: PolicyKey;
  readonly source: NetworkPolicyModel;
  readonly rule: PolicyRule;
  readonly named: boolean;
  /**
   * Member pods, the view's current object of each (a pod's change replaces its object here);
   * undefined: to resolve again from the cluster (a namespace's labels changed).
   */
  members: Set<PolicyPod> | undefined;
  /** The content handed out last; undefined once a member changed. */
  group: PeerGroup | undefined;
  /** The content handed out before that change (kept when the new content is equal). */
  last: PeerGroup | undefined;
}

function sameGroup(a: PeerGroup, b: PeerGroup): boolean {
  if (a.kind === 'ips' && b.kind === 'ips')
    return a.ips.length === b.ips.length && a.ips.every((ip, i) => ip === b.ips[i]);
  if (a.kind === 'endpoints' && b.kind === 'endpoints')
    return (
      a.endpoints.length === b.endpoints.length &&
      a.endpoints.every((e, i) => {
        const o = b.endpoints[i];
        return o !== undefined && e.ip === o.ip && e.protocol === o.protocol && e.port === o.port;
      })
    );
  return false;
}

function hasNamespaceSelectorFor(rule: PolicyRule, labels: Labels): boolean {
  return (rule.peers ?? []).some(
    (peer) => peer.namespaceSelector !== undefined && matchesSelector(peer.namespaceSelector, labels),
  );
}

/**
 * The node-local policy view, kept incrementally. A local pod's policy names its peers by group
 * (one per rule, `PeerGroupKey`), so the pods and the peers are recomputed apart:
 * - a pod change recomputes that pod (when local) and moves it in or out of the groups it enters
 *   or leaves (one membership test per group the state names), never their targets;
 * - a policy change recomputes the local pods it selects (before and after) and drops its groups;
 * - a namespace change resolves again the groups whose namespace selectors it can affect.
 * Only the groups some local pod names are kept (memory grows with them, not with the cluster).
 */
export class PolicyView implements PolicyWorld {
  readonly #node: string;
  readonly #pods = new Map<string, Map<PodKey, PolicyPod>>();
  readonly #namespaces = new Map<string, Labels>();
  readonly #policies = new Map<string, Map<PolicyKey, NetworkPolicyModel>>();
  readonly #local = new Map<PodKey, PodPolicy>();
  readonly #dirty = new Set<PodKey>();
  readonly #groups = new Map<PeerGroupKey, GroupEntry>();
  #groupsChanged = false;
  #state: PolicyState = { pods: new Map(), groups: new Map() };

  constructor(nodeName: string) {
    this.#node = nodeName;
  }

  // PolicyWorld
  namespaceLabels(name: string): Labels {
    return this.#namespaces.get(name) ?? NO_LABELS;
  }
  podNamespaces(): Iterable<string> {
    return this.#pods.keys();
  }
  podsIn(namespace: string): Iterable<PolicyPod> {
    return this.#pods.get(namespace)?.values() ?? [];
  }
  policiesIn(namespace: string): Iterable<NetworkPolicyModel> {
    return this.#policies.get(namespace)?.values() ?? [];
  }

  pod(key: PodKey): PolicyPod | undefined {
    const [namespace] = key.split('/', 1);
    return this.#pods.get(namespace as string)?.get(key);
  }

  setPod(pod: PolicyPod): void {
    const key = podKey(pod.namespace, pod.name);
    const old = this.pod(key);
    let inNamespace = this.#pods.get(pod.namespace);
    if (inNamespace === undefined) this.#pods.set(pod.namespace, (inNamespace = new Map()));
    inNamespace.set(key, pod);
    this.#podChanged(key, old, pod);
  }

  deletePod(key: PodKey): void {
    const old = this.pod(key);
    if (old === undefined) return;
    const inNamespace = this.#pods.get(old.namespace);
    inNamespace?.delete(key);
    if (inNamespace?.size === 0) this.#pods.delete(old.namespace);
    this.#podChanged(key, old, undefined);
  }

  setNamespace(namespace: PolicyNamespace): void {
    const old = this.#namespaces.get(namespace.name) ?? NO_LABELS;
    this.#namespaces.set(namespace.name, namespace.labels);
    this.#namespaceChanged(old, namespace.labels);
  }

  deleteNamespace(name: string): void {
    const old = this.#namespaces.get(name);
    if (old === undefined) return;
    this.#namespaces.delete(name);
    this.#namespaceChanged(old, NO_LABELS);
  }

  setPolicy(policy: NetworkPolicyModel): void {
    const key = policyKey(policy.namespace, policy.name);
    let inNamespace = this.#policies.get(policy.namespace);
    if (inNamespace === undefined) this.#policies.set(policy.namespace, (inNamespace = new Map()));
    const old = inNamespace.get(key);
    inNamespace.set(key, policy);
    this.#policyChanged(key, old, policy);
  }

  deletePolicy(key: PolicyKey): void {
    const [namespace] = key.split('/', 1);
    const inNamespace = this.#policies.get(namespace as string);
    const old = inNamespace?.get(key);
    if (old === undefined) return;
    inNamespace?.delete(key);
    if (inNamespace?.size === 0) this.#policies.delete(old.namespace);
    this.#policyChanged(key, old, undefined);
  }

  /** Recomputes the marked pods and the changed groups; returns the full state and what changed. */
  state(): PolicyUpdate {
    if (this.#dirty.size === 0 && !this.#groupsChanged) return { state: this.#state, changed: [], changedGroups: [] };
    const changed = [...this.#dirty];
    this.#dirty.clear();
    this.#groupsChanged = false;
    for (const key of changed) {
      const pod = this.pod(key);
      if (pod === undefined || !this.#isLocal(pod)) this.#local.delete(key);
      else this.#local.set(key, podPolicy(pod, this));
    }
    const named = new Set<PeerGroupKey>();
    for (const policy of this.#local.values()) {
      for (const rule of [...policy.ingress.allow, ...policy.egress.allow]) {
        if (rule.peers?.group !== undefined) named.add(rule.peers.group);
        if (rule.endpoints !== undefined) named.add(rule.endpoints);
      }
    }
    for (const key of this.#groups.keys()) if (!named.has(key)) this.#groups.delete(key);
    const groups = new Map<PeerGroupKey, PeerGroup>();
    const changedGroups: PeerGroupKey[] = [];
    for (const key of named) {
      const entry = this.#groups.get(key) ?? this.#newEntry(key);
      if (entry === undefined) continue;
      this.#groups.set(key, entry);
      if (entry.group === undefined) {
        entry.members ??= new Set(groupPods(entry.source, entry.rule, this));
        const group = peerGroup(entry.rule, entry.named, entry.members.values());
        const kept = entry.last !== undefined && sameGroup(entry.last, group);
        entry.group = kept ? entry.last : group;
        entry.last = entry.group;
        if (!kept) changedGroups.push(key);
      }
      groups.set(key, entry.group as PeerGroup);
    }
    this.#state = { pods: new Map(this.#local), groups };
    return { state: this.#state, changed, changedGroups };
  }

  /** The entry of a group a local pod's policy names (`namespace/name/direction/index[/named]`). */
  #newEntry(key: PeerGroupKey): GroupEntry | undefined {
    const [namespace, name, direction, index, named] = key.split('/');
    const policy = policyKey(namespace as string, name as string);
    const source = this.#policies.get(namespace as string)?.get(policy);
    const rule = (direction === 'Ingress' ? source?.ingress : source?.egress)?.[Number(index)];
    if (source === undefined || rule === undefined) return undefined;
    return { policy, source, rule, named: named === 'named', members: undefined, group: undefined, last: undefined };
  }

  #isLocal(pod: PolicyPod): boolean {
    return pod.nodeName === this.#node && isPolicyPod(pod);
  }

  #markTargets(policy: NetworkPolicyModel): void {
    for (const pod of this.podsIn(policy.namespace)) {
      if (this.#isLocal(pod) && matchesSelector(policy.podSelector, pod.labels))
        this.#dirty.add(podKey(pod.namespace, pod.name));
    }
  }

  #podChanged(key: PodKey, old: PolicyPod | undefined, pod: PolicyPod | undefined): void {
    if ((old !== undefined && this.#isLocal(old)) || (pod !== undefined && this.#isLocal(pod))) this.#dirty.add(key);
    const labels = (name: string) => this.namespaceLabels(name);
    for (const entry of this.#groups.values()) {
      if (entry.members === undefined) continue;
      if (pod !== undefined && ruleSelectsPod(entry.source, entry.rule, pod, labels)) {
        if (entry.members.has(pod)) continue;
        if (old !== undefined) entry.members.delete(old);
        entry.members.add(pod);
      } else if (old === undefined || !entry.members.delete(old)) continue;
      entry.group = undefined;
      this.#groupsChanged = true;
    }
  }

  #namespaceChanged(old: Labels, labels: Labels): void {
    for (const entry of this.#groups.values()) {
      if (!hasNamespaceSelectorFor(entry.rule, old) && !hasNamespaceSelectorFor(entry.rule, labels)) continue;
      entry.members = undefined;
      entry.group = undefined;
      this.#groupsChanged = true;
    }
  }

  #policyChanged(key: PolicyKey, old: NetworkPolicyModel | undefined, policy: NetworkPolicyModel | undefined): void {
    for (const [groupKey, entry] of this.#groups) {
      if (entry.policy !== key) continue;
      this.#groups.delete(groupKey);
      this.#groupsChanged = true;
    }
    if (old !== undefined) this.#markTargets(old);
    if (policy !== undefined) this.#markTargets(policy);
  }
}
