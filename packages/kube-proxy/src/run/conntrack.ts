/**
 * The conntrack sysctls kube-proxy sets at start (cmd/kube-proxy/app/conntrack.go), as a plan;
 * `sysctl.ts` writes them in the namespace kube-proxy programs (never the root one from a test).
 */
import type { ConntrackConfiguration } from '../config/types.js';

export interface SysctlSetting {
  readonly name: string;
  readonly value: number;
  /** A failure to set it stops the start, as upstream's does (default: a warning). */
  readonly fatal?: boolean;
}

/** Every one fatal: upstream's platformSetup returns each write's error (it never writes the hashsize here). */
export function conntrackSysctls(ct: ConntrackConfiguration, cpuCores: number): SysctlSetting[] {
  return conntrackSettings(ct, cpuCores).map((s) => ({ ...s, fatal: true }));
}

function conntrackSettings(ct: ConntrackConfiguration, cpuCores: number): SysctlSetting[] {
  const settings: SysctlSetting[] = [];
  if (ct.maxPerCore > 0)
    settings.push({ name: 'net/netfilter/nf_conntrack_max', value: Math.max(ct.maxPerCore * cpuCores, ct.min) });
  const seconds = (ms: number) => Math.floor(ms / 1000);
  if (ct.tcpEstablishedTimeout > 0) {
    settings.push({
      name: 'net/netfilter/nf_conntrack_tcp_timeout_established',
      value: seconds(ct.tcpEstablishedTimeout),
    });
  }
  if (ct.tcpCloseWaitTimeout > 0) {
    settings.push({
      name: 'net/netfilter/nf_conntrack_tcp_timeout_close_wait',
      value: seconds(ct.tcpCloseWaitTimeout),
    });
  }
  if (ct.tcpBeLiberal) settings.push({ name: 'net/netfilter/nf_conntrack_tcp_be_liberal', value: 1 });
  if (ct.udpTimeout > 0)
    settings.push({ name: 'net/netfilter/nf_conntrack_udp_timeout', value: seconds(ct.udpTimeout) });
  if (ct.udpStreamTimeout > 0) {
    settings.push({ name: 'net/netfilter/nf_conntrack_udp_timeout_stream', value: seconds(ct.udpStreamTimeout) });
  }
  return settings;
}
