/**
 * KubeProxyConfiguration -> the iptables backend's options: nodePortAddresses (empty: every local
 * address, as upstream's iptables mode), the iptables section's masqueradeAll, masqueradeBit and
 * localhostNodePorts, the kernel's tcp_be_liberal (which conntrack.tcpBeLiberal sets at start), and the local-traffic detector (as nftables mode's).
 */
import type { IptablesBackendOptions } from '@kpng/iptables';
import { NODE_PORT_ADDRESSES_PRIMARY, type KubeProxyConfiguration } from '../config/types.js';
import { detector } from './nft-options.js';

export interface IptablesMapping {
  readonly options: IptablesBackendOptions;
  readonly warnings: readonly string[];
}

/** `kernelTcpBeLiberal`: the kernel's `nf_conntrack_tcp_be_liberal` read at start (tcp-be-liberal.ts), as upstream. */
export function iptablesBackendOptions(config: KubeProxyConfiguration, kernelTcpBeLiberal = false): IptablesMapping {
  const warnings: string[] = [];
  const addresses = config.nodePortAddresses;
  return {
    options: {
      nodePortAddresses: addresses[0] === NODE_PORT_ADDRESSES_PRIMARY ? 'primary' : [...addresses],
      localhostNodePorts: config.iptables.localhostNodePorts,
      localDetector: detector(config, warnings),
      masqueradeAll: config.iptables.masqueradeAll,
      masqueradeBit: config.iptables.masqueradeBit,
      conntrackTCPLiberal: kernelTcpBeLiberal,
    },
    warnings,
  };
}
