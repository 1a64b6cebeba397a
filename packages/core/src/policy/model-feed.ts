/**
 * The global model's Pods, Namespaces and NetworkPolicies into a `PolicyView`: the view holds the
 * model's own (hash-deduplicated, readonly) objects, so feeding it adds indexes, not copies.
 */
import type { NetworkPolicyModel, PodKey, PolicyKey, PolicyNamespace, PolicyPod } from './types.js';
import type { PolicyView } from './policy-view.js';

/** What the feed reads from the global model (`GlobalModel` implements it). */
export interface PolicyModelReader {
  pod(key: PodKey): PolicyPod | undefined;
  namespace(name: string): PolicyNamespace | undefined;
  networkPolicy(key: PolicyKey): NetworkPolicyModel | undefined;
  podKeys(): Iterable<PodKey>;
  namespaceNames(): Iterable<string>;
  networkPolicyKeys(): Iterable<PolicyKey>;
}

/** The keys one model transaction changed (a `ChangeSet`'s policy part). */
export interface PolicyChanges {
  readonly pods: ReadonlySet<PodKey>;
  readonly namespaces: ReadonlySet<string>;
  readonly policies: ReadonlySet<PolicyKey>;
}

export function hasPolicyChanges(changes: PolicyChanges): boolean {
  return changes.pods.size > 0 || changes.namespaces.size > 0 || changes.policies.size > 0;
}

/** Brings `view` to the model's content for the changed keys (present: set; absent: deleted). */
export function feedPolicyChanges(view: PolicyView, model: PolicyModelReader, changes: PolicyChanges): void {
  for (const name of changes.namespaces) {
    const ns = model.namespace(name);
    if (ns) view.setNamespace(ns);
    else view.deleteNamespace(name);
  }
  for (const key of changes.policies) {
    const policy = model.networkPolicy(key);
    if (policy) view.setPolicy(policy);
    else view.deletePolicy(key);
  }
  for (const key of changes.pods) {
    const pod = model.pod(key);
    if (pod) view.setPod(pod);
    else view.deletePod(key);
  }
}

/** Feeds every object of the model (the first state). */
export function feedPolicyModel(view: PolicyView, model: PolicyModelReader): void {
  feedPolicyChanges(view, model, {
    namespaces: new Set(model.namespaceNames()),
    policies: new Set(model.networkPolicyKeys()),
    pods: new Set(model.podKeys()),
  });
}
