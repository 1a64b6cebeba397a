/**
 * Defaulting, as `SetDefaults_KubeProxyConfiguration` (pkg/proxy/apis/config/v1alpha1/defaults.go)
 * does it: a zero duration or an empty address takes the default, so `syncPeriod: 0s` in a file
 * means 30s, and `healthzBindAddress: ""` means 0.0.0.0:10256 (only a flag can disable a server).
 */
import { isIP } from 'node:net';
import type { KubeProxyConfiguration, PartialConfiguration } from './types.js';

export const HEALTHZ_PORT = 10256;
export const METRICS_PORT = 10249;
export const KUBE_PROXY_OOM_SCORE_ADJ = -999;

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** A complete configuration from whatever a file said (nothing, for the flags-only path). */
export function withDefaults(p: PartialConfiguration = {}): KubeProxyConfiguration {
  const bindAddress = p.bindAddress || '0.0.0.0';
  const ipv6 = isIP(bindAddress) === 6;
  const [healthzHost, metricsHost] = ipv6 ? ['[::]', '[::1]'] : ['0.0.0.0', '127.0.0.1'];
  return {
    featureGates: { ...p.featureGates },
    clientConnection: {
      kubeconfig: p.clientConnection?.kubeconfig ?? '',
      acceptContentTypes: p.clientConnection?.acceptContentTypes ?? '',
      contentType: p.clientConnection?.contentType || 'application/vnd.kubernetes.protobuf',
      qps: p.clientConnection?.qps || 5,
      burst: p.clientConnection?.burst || 10,
    },
    logging: {
      format: p.logging?.format || 'text',
      flushFrequency: p.logging?.flushFrequency || 5 * SECOND,
      verbosity: p.logging?.verbosity ?? 0,
      vmodule: [...(p.logging?.vmodule ?? [])],
      options: p.logging?.options ?? { json: { infoBufferSize: '0' }, text: { infoBufferSize: '0' } },
    },
    hostnameOverride: p.hostnameOverride ?? '',
    bindAddress,
    healthzBindAddress: p.healthzBindAddress
      ? appendPortIfNeeded(p.healthzBindAddress, HEALTHZ_PORT)
      : `${healthzHost}:${HEALTHZ_PORT}`,
    metricsBindAddress: p.metricsBindAddress
      ? appendPortIfNeeded(p.metricsBindAddress, METRICS_PORT)
      : `${metricsHost}:${METRICS_PORT}`,
    bindAddressHardFail: p.bindAddressHardFail ?? false,
    enableProfiling: p.enableProfiling ?? false,
    showHiddenMetricsForVersion: p.showHiddenMetricsForVersion ?? '',
    serviceProxyName: p.serviceProxyName ?? '',
    mode: p.mode ?? '',
    iptables: {
      masqueradeBit: p.iptables?.masqueradeBit ?? 14,
      masqueradeAll: p.iptables?.masqueradeAll ?? false,
      localhostNodePorts: p.iptables?.localhostNodePorts ?? true,
      syncPeriod: p.iptables?.syncPeriod || 30 * SECOND,
      minSyncPeriod: p.iptables?.minSyncPeriod || SECOND,
    },
    ipvs: {
      syncPeriod: p.ipvs?.syncPeriod || 30 * SECOND,
      minSyncPeriod: p.ipvs?.minSyncPeriod ?? 0,
      scheduler: p.ipvs?.scheduler ?? '',
      excludeCIDRs: [...(p.ipvs?.excludeCIDRs ?? [])],
      strictARP: p.ipvs?.strictARP ?? false,
      tcpTimeout: p.ipvs?.tcpTimeout ?? 0,
      tcpFinTimeout: p.ipvs?.tcpFinTimeout ?? 0,
      udpTimeout: p.ipvs?.udpTimeout ?? 0,
    },
    nftables: {
      masqueradeBit: p.nftables?.masqueradeBit ?? 14,
      masqueradeAll: p.nftables?.masqueradeAll ?? false,
      syncPeriod: p.nftables?.syncPeriod || 30 * SECOND,
      minSyncPeriod: p.nftables?.minSyncPeriod || SECOND,
      tableName: p.nftables?.tableName ?? '',
    },
    winkernel: {
      networkName: p.winkernel?.networkName ?? '',
      sourceVip: p.winkernel?.sourceVip ?? '',
      enableDSR: p.winkernel?.enableDSR ?? false,
      rootHnsEndpointName: p.winkernel?.rootHnsEndpointName ?? '',
      forwardHealthCheckVip: p.winkernel?.forwardHealthCheckVip ?? false,
    },
    detectLocalMode: p.detectLocalMode ?? '',
    detectLocal: {
      bridgeInterface: p.detectLocal?.bridgeInterface ?? '',
      interfaceNamePrefix: p.detectLocal?.interfaceNamePrefix ?? '',
    },
    clusterCIDR: p.clusterCIDR ?? '',
    nodePortAddresses: [...(p.nodePortAddresses ?? [])],
    oomScoreAdj: p.oomScoreAdj ?? KUBE_PROXY_OOM_SCORE_ADJ,
    conntrack: {
      maxPerCore: p.conntrack?.maxPerCore ?? 32 * 1024,
      min: p.conntrack?.min ?? 128 * 1024,
      tcpEstablishedTimeout: p.conntrack?.tcpEstablishedTimeout ?? 24 * HOUR,
      tcpCloseWaitTimeout: p.conntrack?.tcpCloseWaitTimeout ?? HOUR,
      tcpBeLiberal: p.conntrack?.tcpBeLiberal ?? false,
      udpTimeout: p.conntrack?.udpTimeout ?? 0,
      udpStreamTimeout: p.conntrack?.udpStreamTimeout ?? 0,
    },
    configSyncPeriod: p.configSyncPeriod || 15 * MINUTE,
    portRange: p.portRange ?? '',
    windowsRunAsService: p.windowsRunAsService ?? false,
    enforceNetworkPolicy: p.enforceNetworkPolicy ?? false,
  };
}

/**
 * `proxyutil.AppendPortIfNeeded`: a bare IP gets the default port (IPv6 bracketed); anything
 * else, including `host:port` and garbage, is left for validation to judge.
 */
export function appendPortIfNeeded(address: string, port: number): string {
  if (splitHostPort(address) !== undefined) return address;
  const family = isIP(address);
  if (family === 4) return `${address}:${port}`;
  if (family === 6) return `[${address}]:${port}`;
  return address;
}

/** Go's `net.SplitHostPort` for the shapes kube-proxy meets: `h:p`, `[v6]:p`. */
export function splitHostPort(address: string): { host: string; port: string } | undefined {
  const bracketed = /^\[([^\]]*)\]:([^:]*)$/.exec(address);
  if (bracketed) return { host: bracketed[1]!, port: bracketed[2]! };
  const plain = /^([^:[\]]*):([^:]*)$/.exec(address);
  if (plain) return { host: plain[1]!, port: plain[2]! };
  return undefined;
}
