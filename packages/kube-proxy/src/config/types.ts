/**
 * `kubeproxy.config.k8s.io/v1alpha1` KubeProxyConfiguration (k8s.io/kube-proxy/config/v1alpha1),
 * after defaulting: every field has a value. Durations are milliseconds. Field names are the JSON
 * names, so error paths read like the file the operator wrote.
 */
export const API_VERSION = 'kubeproxy.config.k8s.io/v1alpha1';
export const KIND = 'KubeProxyConfiguration';
export const GROUP = 'kubeproxy.config.k8s.io';

export type Milliseconds = number;

export interface ClientConnectionConfiguration {
  kubeconfig: string;
  acceptContentTypes: string;
  contentType: string;
  qps: number;
  burst: number;
}

export interface VModuleItem {
  filePattern: string;
  verbosity: number;
}

export interface LoggingConfiguration {
  format: string;
  flushFrequency: Milliseconds;
  verbosity: number;
  vmodule: VModuleItem[];
  /** Format-specific options (`json`, `text`), passed through untouched. */
  options: Record<string, unknown>;
}

export interface IPTablesConfiguration {
  masqueradeBit: number;
  masqueradeAll: boolean;
  localhostNodePorts: boolean;
  syncPeriod: Milliseconds;
  minSyncPeriod: Milliseconds;
}

export interface IPVSConfiguration {
  syncPeriod: Milliseconds;
  minSyncPeriod: Milliseconds;
  scheduler: string;
  excludeCIDRs: string[];
  strictARP: boolean;
  tcpTimeout: Milliseconds;
  tcpFinTimeout: Milliseconds;
  udpTimeout: Milliseconds;
}

export interface NFTablesConfiguration {
  masqueradeBit: number;
  masqueradeAll: boolean;
  syncPeriod: Milliseconds;
  minSyncPeriod: Milliseconds;
  /** The `ip`/`ip6` table names; empty means kpng's own (`kpng`). */
  tableName: string;
}

export interface WinkernelConfiguration {
  networkName: string;
  sourceVip: string;
  enableDSR: boolean;
  rootHnsEndpointName: string;
  forwardHealthCheckVip: boolean;
}

export interface DetectLocalConfiguration {
  bridgeInterface: string;
  interfaceNamePrefix: string;
}

export interface ConntrackConfiguration {
  maxPerCore: number;
  min: number;
  tcpEstablishedTimeout: Milliseconds;
  tcpCloseWaitTimeout: Milliseconds;
  tcpBeLiberal: boolean;
  udpTimeout: Milliseconds;
  udpStreamTimeout: Milliseconds;
}

export interface KubeProxyConfiguration {
  featureGates: Record<string, boolean>;
  clientConnection: ClientConnectionConfiguration;
  logging: LoggingConfiguration;
  hostnameOverride: string;
  bindAddress: string;
  healthzBindAddress: string;
  metricsBindAddress: string;
  bindAddressHardFail: boolean;
  enableProfiling: boolean;
  showHiddenMetricsForVersion: string;
  serviceProxyName: string;
  mode: string;
  iptables: IPTablesConfiguration;
  ipvs: IPVSConfiguration;
  nftables: NFTablesConfiguration;
  winkernel: WinkernelConfiguration;
  detectLocalMode: string;
  detectLocal: DetectLocalConfiguration;
  /** Comma-separated, one CIDR per family at most. */
  clusterCIDR: string;
  /** CIDRs, or `["primary"]`; empty means unset. */
  nodePortAddresses: string[];
  oomScoreAdj: number;
  conntrack: ConntrackConfiguration;
  configSyncPeriod: Milliseconds;
  portRange: string;
  windowsRunAsService: boolean;
  /**
   * kpng's extension (upstream has no such field): enforce NetworkPolicy with `@kpng/netpol` beside
   * the mode's backend, in this process (`--with-netpol`). Linux modes only. Omitted when false.
   */
  enforceNetworkPolicy: boolean;
}

/** What a config file may leave out: any field, at any depth. */
export type PartialConfiguration = {
  [K in keyof KubeProxyConfiguration]?: KubeProxyConfiguration[K] extends unknown[]
    ? KubeProxyConfiguration[K]
    : KubeProxyConfiguration[K] extends Record<string, boolean>
      ? KubeProxyConfiguration[K]
      : KubeProxyConfiguration[K] extends object
        ? Partial<KubeProxyConfiguration[K]>
        : KubeProxyConfiguration[K];
};

/** Proxy modes kube-proxy knows (Linux and Windows). */
export const PROXY_MODES = ['iptables', 'ipvs', 'nftables', 'kernelspace'] as const;

/** kpng's own modes (extensions; upstream has none of them): `ebpf` (`@kpng/ebpf`). */
export const KPNG_PROXY_MODES = ['ebpf'] as const;

export const LOCAL_MODES = ['ClusterCIDR', 'NodeCIDR', 'BridgeInterface', 'InterfaceNamePrefix'] as const;

/** `ipvs.scheduler` values kube-proxy accepts (blank means `rr`). */
export const IPVS_SCHEDULERS = ['rr', 'wrr', 'lc', 'wlc', 'lblc', 'lblcr', 'sh', 'dh', 'sed', 'nq'] as const;

export const LOGGING_FORMATS = ['json', 'text'] as const;

export const NODE_PORT_ADDRESSES_PRIMARY = 'primary';
