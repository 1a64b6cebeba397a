import type { Labels, NetworkPolicyModel, PolicyPod } from './types.js';

/** What evaluating a pod's policies reads: the cluster's pods, namespaces and policies. */
export interface PolicyWorld {
  /** A namespace's labels; `{}` for a namespace the model has no object for. */
  namespaceLabels(name: string): Labels;
  /** Namespaces that hold pods. */
  podNamespaces(): Iterable<string>;
  podsIn(namespace: string): Iterable<PolicyPod>;
  policiesIn(namespace: string): Iterable<NetworkPolicyModel>;
}

/** A pod that can be a policy's peer or target: it has an IP and its own network namespace. */
export function isPolicyPod(pod: PolicyPod): boolean {
  return !pod.hostNetwork && pod.ips.length > 0;
}
