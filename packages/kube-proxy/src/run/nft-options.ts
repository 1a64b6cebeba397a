/**
 * KubeProxyConfiguration -> the nftables backend's options: nodePortAddresses, the local-traffic
 * detector (detectLocalMode + clusterCIDR / the node's podCIDR / an interface), masqueradeAll and
 * masqueradeBit of the nftables section, the table name.
 */
import type { LocalDetectorConfig, NftBackendOptions } from '@kpng/nft';
import { NODE_PORT_ADDRESSES_PRIMARY, type KubeProxyConfiguration } from '../config/types.js';

/** kpng's own programs' tables (`kpng-nft`): removed by `--cleanup` too, in case a node ran one. */
export const KPNG_TABLE = 'kpng';
/** Upstream kube-proxy's nftables tables (`ip kube-proxy`, `ip6 kube-proxy`). */
export const UPSTREAM_TABLE = 'kube-proxy';

/** Every nftables table name kube-proxy or kpng may have used (the configured one included). */
export function nftTablesOf(config: KubeProxyConfiguration): string[] {
  return [...new Set([tableName(config), UPSTREAM_TABLE, KPNG_TABLE])];
}

export interface NftMapping {
  readonly options: NftBackendOptions;
  /** Things the operator should know (a detector that cannot work, …). */
  readonly warnings: readonly string[];
}

export function nftBackendOptions(config: KubeProxyConfiguration): NftMapping {
  const warnings: string[] = [];
  const localDetector = detector(config, warnings);
  const addresses = config.nodePortAddresses;
  return {
    options: {
      tableName: tableName(config),
      nodePortAddresses:
        addresses.length === 0 || addresses[0] === NODE_PORT_ADDRESSES_PRIMARY ? 'primary' : [...addresses],
      localDetector,
      masqueradeAll: config.nftables.masqueradeAll,
      masqueradeBit: config.nftables.masqueradeBit,
    },
    warnings,
  };
}

/**
 * Unset means upstream's `kube-proxy`, so `nft list table ip kube-proxy` runbooks keep working. The
 * first sync replaces whatever upstream left in it, in one atomic transaction.
 */
export function tableName(config: KubeProxyConfiguration): string {
  return config.nftables.tableName || UPSTREAM_TABLE;
}

/** detectLocalMode and its companions (shared by the nftables and iptables modes). */
export function detector(config: KubeProxyConfiguration, warnings: string[]): LocalDetectorConfig {
  switch (config.detectLocalMode) {
    case 'NodeCIDR':
      return { mode: 'NodeCIDR' };
    case 'BridgeInterface':
      return { mode: 'BridgeInterface', bridge: config.detectLocal.bridgeInterface };
    case 'InterfaceNamePrefix':
      return { mode: 'InterfaceNamePrefix', prefix: config.detectLocal.interfaceNamePrefix };
    default: {
      const clusterCIDRs = config.clusterCIDR
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      if (clusterCIDRs.length > 0) return { mode: 'ClusterCIDR', clusterCIDRs };
      warnings.push(
        'detectLocalMode is ClusterCIDR but no clusterCIDR is set: traffic from pods is not told apart (as upstream, the detector is a no-op)',
      );
      return { mode: 'None' };
    }
  }
}
