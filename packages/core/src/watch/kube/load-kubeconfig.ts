import type { KubeConfig } from '@kubernetes/client-node';
import { clientNodeConfig } from './client-node.js';

export interface KubeConfigLocation {
  /** A kubeconfig file; otherwise `$KUBECONFIG`, `~/.kube/config` or the in-cluster service account. */
  readonly kubeconfigPath?: string;
  /** Overrides the current cluster's server URL (kube-proxy's `--master`). */
  readonly server?: string;
}

/** The kubeconfig kube-proxy would use for the same flags. */
export function loadKubeConfig(location: KubeConfigLocation = {}): KubeConfig {
  const { KubeConfig } = clientNodeConfig();
  const kc = new KubeConfig();
  if (location.kubeconfigPath) kc.loadFromFile(location.kubeconfigPath);
  else kc.loadFromDefault();
  const server = location.server;
  const current = kc.getCurrentCluster();
  if (!server || !current) return kc;
  const overridden = new KubeConfig();
  overridden.loadFromOptions({
    clusters: kc.clusters.map((c) => (c.name === current.name ? { ...c, server } : c)),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
  return overridden;
}
