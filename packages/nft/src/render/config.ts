/**
 * The backend's configuration, as kube-proxy spells it (nodePortAddresses, detectLocalMode,
 * masqueradeAll, masqueradeBit), validated once. Everything here is constant for the lifetime of a
 * backend instance, so chain contents may depend on it.
 */
import type { IPFamily, LocalDetectorConfig } from '@kpng/core';
import { familyOfAddress, isCidr } from './ip.js';

export type { LocalDetectorConfig };

export interface NftConfig {
  readonly families: readonly IPFamily[];
  /** `kpng`: the backend owns `ip <tableName>` and `ip6 <tableName>` and nothing else. */
  readonly tableName: string;
  /** `primary` (the node's first address of each family) or CIDRs (`0.0.0.0/0` = every local address). */
  readonly nodePortAddresses: 'primary' | readonly string[];
  readonly localDetector: LocalDetectorConfig;
  readonly masqueradeAll: boolean;
  /** The packet mark bit meaning "masquerade me"; kube-proxy's default is 14 (0x4000). */
  readonly masqueradeBit: number;
  /** The cluster's service CIDRs: traffic to an unallocated address in them is dropped (semantics 3.2). */
  readonly serviceCIDRs: readonly string[];
  /** Maximum number of ClientIP affinity entries (client, sticky port's endpoint) per family. */
  readonly affinitySetSize: number;
  /**
   * `all`: every Service address. `north-south`: NodePorts, external and LB IPs (with source
   * ranges, masquerade, hairpin); the ClusterIP of a TCP or UDP port keeps only its guard entry
   * (unused ports rejected) and is not balanced here (SCTP ClusterIPs are): the mode of a packet
   * path whose east-west traffic is balanced at the socket (the ebpf backend), so an endpoint
   * change of a ClusterIP-only Service writes nothing.
   */
  readonly scope: 'all' | 'north-south';
}

export type NftConfigInput = Partial<NftConfig>;

export const DEFAULT_CONFIG: NftConfig = {
  families: ['IPv4', 'IPv6'],
  tableName: 'kpng',
  nodePortAddresses: 'primary',
  localDetector: { mode: 'None' },
  masqueradeAll: false,
  masqueradeBit: 14,
  serviceCIDRs: [],
  affinitySetSize: 1_048_576,
  scope: 'all',
};

const INTERFACE_NAME = /^[A-Za-z0-9_.-]{1,15}$/;

/** Fills defaults and refuses anything that could not be rendered safely. */
export function resolveConfig(input: NftConfigInput = {}): NftConfig {
  const config: NftConfig = { ...DEFAULT_CONFIG, ...input };
  const problems: string[] = [];
  if (config.families.length === 0 || config.families.some((f) => f !== 'IPv4' && f !== 'IPv6')) {
    problems.push(`families must be a non-empty subset of IPv4, IPv6`);
  }
  if (!/^[A-Za-z_][A-Za-z0-9_-]{0,31}$/.test(config.tableName))
    problems.push(`bad table name ${JSON.stringify(config.tableName)}`);
  if (!Number.isInteger(config.masqueradeBit) || config.masqueradeBit < 0 || config.masqueradeBit > 31) {
    problems.push(`masqueradeBit must be an integer in 0..31`);
  }
  if (!Number.isInteger(config.affinitySetSize) || config.affinitySetSize < 1)
    problems.push('affinitySetSize must be a positive integer');
  if (config.scope !== 'all' && config.scope !== 'north-south') problems.push('scope must be all or north-south');
  const cidrs = [
    ...(config.nodePortAddresses === 'primary' ? [] : config.nodePortAddresses),
    ...config.serviceCIDRs,
    ...(config.localDetector.mode === 'ClusterCIDR' ? config.localDetector.clusterCIDRs : []),
  ];
  for (const cidr of cidrs) if (!isCidr(cidr)) problems.push(`bad CIDR ${JSON.stringify(cidr)}`);
  const detector = config.localDetector;
  if (detector.mode === 'BridgeInterface' && !INTERFACE_NAME.test(detector.bridge)) {
    problems.push(`bad bridge interface name ${JSON.stringify(detector.bridge)}`);
  }
  if (detector.mode === 'InterfaceNamePrefix' && !INTERFACE_NAME.test(detector.prefix)) {
    problems.push(`bad interface name prefix ${JSON.stringify(detector.prefix)}`);
  }
  if (problems.length > 0) throw new Error(`invalid nft backend configuration: ${problems.join('; ')}`);
  return config;
}

/** The CIDRs of one family out of a mixed list. */
export function cidrsOfFamily(cidrs: readonly string[], family: IPFamily): string[] {
  return cidrs.filter((cidr) => familyOfAddress(cidr) === family);
}

/** The mark value of the masquerade bit, as nft hex (`0x4000`). */
export function masqueradeMark(config: NftConfig): string {
  return `0x${((1 << config.masqueradeBit) >>> 0).toString(16)}`;
}
