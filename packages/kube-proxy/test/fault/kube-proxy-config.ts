// The KubeProxyConfiguration every fault case gives the compat kube-proxy (in-process or a child):
// the lab's API server, status servers on loopback, the lab's pod CIDRs, a short sync period.

export interface KubeProxyConfigOptions {
  readonly mode: 'nftables' | 'iptables';
  readonly kubeconfigPath: string;
  readonly metricsPort: number;
  readonly healthzPort: number;
  readonly syncPeriod: string;
}

export function kubeProxyConfigYaml(o: KubeProxyConfigOptions): string {
  return [
    'apiVersion: kubeproxy.config.k8s.io/v1alpha1',
    'kind: KubeProxyConfiguration',
    `mode: ${o.mode}`,
    'clientConnection:',
    `  kubeconfig: ${o.kubeconfigPath}`,
    `metricsBindAddress: 127.0.0.1:${o.metricsPort}`,
    `healthzBindAddress: 127.0.0.1:${o.healthzPort}`,
    'detectLocalMode: ClusterCIDR',
    'clusterCIDR: 198.18.0.0/22,2001:db8::/46',
    `${o.mode}:`,
    '  minSyncPeriod: 100ms',
    `  syncPeriod: ${o.syncPeriod}`,
    'conntrack:',
    '  maxPerCore: 0',
    '',
  ].join('\n');
}
