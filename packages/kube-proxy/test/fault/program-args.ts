// What the fault suite knows of each program it runs, in process (programs.ts) or as a child
// process (child-program.ts): its backend, the nft table it writes, and the flags of `kpng-<backend>`.
import { NODE_NAME } from '@kpng/lab/fault';

export type ProgramName = 'kube-proxy nftables' | 'kpng-nft' | 'kube-proxy iptables' | 'kpng-iptables';

/** The kernel interface the program's backend writes. */
export function backendOf(name: ProgramName): 'nft' | 'iptables' {
  return name === 'kube-proxy nftables' || name === 'kpng-nft' ? 'nft' : 'iptables';
}

/** The nft table the program writes (nft programs), else undefined. */
export function nftTableOf(name: ProgramName): string | undefined {
  return name === 'kube-proxy nftables' ? 'kube-proxy' : name === 'kpng-nft' ? 'kpng' : undefined;
}

export interface KpngArgs {
  readonly kubeconfigPath: string;
  /** The lab's node namespace: a kpng program never runs without one here. */
  readonly netns: string;
  readonly syncPeriod: string;
  readonly fullSyncPeriod?: string;
  readonly metricsPort: number;
  readonly healthzPort: number;
  readonly writeTimeout?: string;
  /** A policy enforcer (kpng-netpol): no Service backend, so no `--cluster-cidr`. */
  readonly policyOnly?: boolean;
}

/** `kpng-nft` / `kpng-iptables` flags: the lab's API server and node, status servers on loopback. */
export function kpngArgv(o: KpngArgs): string[] {
  return [
    ['--kubeconfig', o.kubeconfigPath],
    ['--node-name', NODE_NAME],
    ['--netns', o.netns],
    ...(o.policyOnly === true ? [] : [['--cluster-cidr', '198.18.0.0/22']]),
    ['--min-sync-period', '100ms'],
    ['--sync-period', o.syncPeriod],
    ...(o.fullSyncPeriod === undefined ? [] : [['--full-sync-period', o.fullSyncPeriod]]),
    ...(o.writeTimeout === undefined ? [] : [['--write-timeout', o.writeTimeout]]),
    ['--metrics-bind-address', `127.0.0.1:${o.metricsPort}`],
    ['--healthz-bind-address', `127.0.0.1:${o.healthzPort}`],
  ].flat();
}
