import { KubeConfig } from '@kubernetes/client-node';

/** The kubeconfig at `path`, or the default chain ($KUBECONFIG, ~/.kube/config, in-cluster). */
export function loadKubeConfig(path: string): KubeConfig {
  const kc = new KubeConfig();
  if (path !== '') kc.loadFromFile(path);
  else kc.loadFromDefault();
  return kc;
}
