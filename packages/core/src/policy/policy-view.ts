import { podPolicy } from './evaluate.js';
import { peerSelects, resolvePeers, type ResolvedPeers } from './peers.js';
import { matchesSelector } from './selector.js';
import {
  podKey,
  policyKey,
  type Labels,
  type NetworkPolicyModel,
  type PodKey,
  type PodPolicy,
  type PolicyKey,
  type PolicyNamespace,
  type PolicyPod,
  type PolicyState,
  type PolicyType,
} from './types.js';
import { isPolicyPod, type PolicyWorld } from './world.js';

/** The result of `PolicyView.state()`: the full state and the local pods whose policy changed. */
export interface PolicyUpdate {
  readonly state: PolicyState;
  /** Local pods recomputed (added, changed or removed) since the previous `state()`. */
  readonly changed: readonly PodKey[];
}

const NO_LABELS: Labels = {};

function policySelectsPeer(policy: NetworkPolicyModel, pod: PolicyPod, world: PolicyWorld): boolean {
  const rules = [...policy.ingress, ...policy.egress];
  // A rule open to every peer depends on the pods only through named egress ports.
  const namedEgress = policy.egress.some(
    (rule) => rule.peers === undefined && rule.ports.some((p) => typeof p.port === 'string'),
  );
  if (namedEgress && isPolicyPod(pod)) return true;
  return rules.some((rule) =>
    (rule.peers ?? []).some((peer) => peerSelects(peer, policy.namespace, pod, (name) => world.namespaceLabels(name))),
  );
}

function selectsNamespace(policy: NetworkPolicyModel, labels: Labels): boolean {
  return [...policy.ingress, ...policy.egress].some((rule) =>
    (rule.peers ?? []).some(
      (peer) => peer.namespaceSelector !== undefined && matchesSelector(peer.namespaceSelector, labels),
    ),
  );
}

/**
 * The node-local policy view, kept incrementally: pods are indexed by namespace, rule peers are
 * resolved once per policy and cached, and a change marks only the local pods whose policy it can
 * alter (the changed pod itself, the targets of policies whose peers it enters or leaves, the
 * targets of a changed policy, of policies whose namespace selectors a namespace change affects).
 * `state()` recomputes those pods and nothing else.
 */
export class PolicyView implements PolicyWorld {
  readonly #node: string;
  readonly #pods = new Map<string, Map<PodKey, PolicyPod>>();
  readonly #namespaces = new Map<string, Labels>();
  readonly #policies = new Map<string, Map<PolicyKey, NetworkPolicyModel>>();
  readonly #peerCache = new Map<PolicyKey, Map<string, ResolvedPeers>>();
  readonly #local = new Map<PodKey, PodPolicy>();
  readonly #dirty = new Set<PodKey>();
  #state: PolicyState = { pods: new Map() };

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

  /** Recomputes the marked pods; returns the full state and which pods were recomputed. */
  state(): PolicyUpdate {
    if (this.#dirty.size === 0) return { state: this.#state, changed: [] };
    const resolve = (policy: NetworkPolicyModel, direction: PolicyType, index: number): ResolvedPeers => {
      const key = policyKey(policy.namespace, policy.name);
      let cache = this.#peerCache.get(key);
      if (cache === undefined) this.#peerCache.set(key, (cache = new Map()));
      const ruleKey = `${direction}/${index}`;
      let peers = cache.get(ruleKey);
      if (peers === undefined) {
        const rule = (direction === 'Ingress' ? policy.ingress : policy.egress)[index];
        peers = rule === undefined ? { all: false, pods: [], cidrs: [] } : resolvePeers(policy, rule, this);
        cache.set(ruleKey, peers);
      }
      return peers;
    };
    const changed = [...this.#dirty];
    this.#dirty.clear();
    for (const key of changed) {
      const pod = this.pod(key);
      if (pod === undefined || !this.#isLocal(pod)) this.#local.delete(key);
      else this.#local.set(key, podPolicy(pod, this, resolve));
    }
    this.#state = { pods: new Map(this.#local) };
    return { state: this.#state, changed };
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

  #allPolicies(): Iterable<NetworkPolicyModel> {
    return [...this.#policies.values()].flatMap((inNamespace) => [...inNamespace.values()]);
  }

  #podChanged(key: PodKey, old: PolicyPod | undefined, pod: PolicyPod | undefined): void {
    if ((old !== undefined && this.#isLocal(old)) || (pod !== undefined && this.#isLocal(pod))) this.#dirty.add(key);
    for (const policy of this.#allPolicies()) {
      const affected =
        (old !== undefined && policySelectsPeer(policy, old, this)) ||
        (pod !== undefined && policySelectsPeer(policy, pod, this));
      if (!affected) continue;
      this.#peerCache.delete(policyKey(policy.namespace, policy.name));
      this.#markTargets(policy);
    }
  }

  #namespaceChanged(old: Labels, labels: Labels): void {
    for (const policy of this.#allPolicies()) {
      if (!selectsNamespace(policy, old) && !selectsNamespace(policy, labels)) continue;
      this.#peerCache.delete(policyKey(policy.namespace, policy.name));
      this.#markTargets(policy);
    }
  }

  #policyChanged(key: PolicyKey, old: NetworkPolicyModel | undefined, policy: NetworkPolicyModel | undefined): void {
    this.#peerCache.delete(key);
    if (old !== undefined) this.#markTargets(old);
    if (policy !== undefined) this.#markTargets(policy);
  }
}
