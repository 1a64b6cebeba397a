/**
 * KubeProxyConfiguration -> the IPVS backend's configuration: the `ipvs` section (scheduler,
 * strictARP, timeouts, excludeCIDRs) as upstream's IPVS proxier reads it, masqueradeAll and
 * masqueradeBit of the `iptables` section (upstream's IPVS mode masquerades through iptables),
 * clusterCIDR for the local-traffic detector.
 */
import type { IpvsConfig } from '@kpng/ipvs';
import type { KubeProxyConfiguration } from '../config/types.js';

export interface IpvsMapping {
  readonly config: IpvsConfig;
  readonly warnings: readonly string[];
}

const seconds = (ms: number): number => Math.round(ms / 1000);
const list = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

export function ipvsBackendConfig(config: KubeProxyConfiguration): IpvsMapping {
  const warnings: string[] = [];
  if (config.detectLocalMode !== '' && config.detectLocalMode !== 'ClusterCIDR') {
    warnings.push(
      `detectLocalMode ${config.detectLocalMode} is not supported by the ipvs mode: ClusterIP traffic is told apart by clusterCIDR only`,
    );
  }
  return {
    config: {
      scheduler: config.ipvs.scheduler || 'rr',
      strictARP: config.ipvs.strictARP,
      tcpTimeout: seconds(config.ipvs.tcpTimeout),
      tcpFinTimeout: seconds(config.ipvs.tcpFinTimeout),
      udpTimeout: seconds(config.ipvs.udpTimeout),
      excludeCIDRs: [...config.ipvs.excludeCIDRs],
      clusterCIDRs: list(config.clusterCIDR),
      masqueradeAll: config.iptables.masqueradeAll,
      // CIDRs or ["primary"] (validated); empty = every node address, upstream's IPVS default.
      nodePortAddresses: [...config.nodePortAddresses],
      masqueradeBit: config.iptables.masqueradeBit,
    },
    warnings,
  };
}
