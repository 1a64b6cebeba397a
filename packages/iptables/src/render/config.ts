/**
 * The backend's configuration, as kube-proxy spells it for iptables mode (nodePortAddresses,
 * localhostNodePorts, detectLocalMode, masqueradeAll, masqueradeBit, conntrack tcp_be_liberal),
 * validated once. Constant for the lifetime of a backend, so chain contents may depend on it.
 */
import { canonicalCIDR, isInterfaceName, isMarkBit, type IPFamily, type LocalDetectorConfig } from '@kpng/core';

export type { LocalDetectorConfig };

/** Which iptables the host runs: `auto` uses the `iptables*` commands as installed. */
export type IptablesFlavour = 'auto' | 'legacy' | 'nft';

export interface IptablesConfig {
  readonly families: readonly IPFamily[];
  /** `[]` (upstream's iptables default): every local address; else CIDRs, or `primary` (the node's first address per family). */
  readonly nodePortAddresses: 'primary' | readonly string[];
  /** IPv4 NodePorts on 127.0.0.1 (upstream's default true): sets route_localnet and guards martians. */
  readonly localhostNodePorts: boolean;
  readonly localDetector: LocalDetectorConfig;
  readonly masqueradeAll: boolean;
  /** The mark bit meaning "masquerade me"; kube-proxy's default is 14 (0x4000). */
  readonly masqueradeBit: number;
  /** With tcp_be_liberal set, INVALID packets are not dropped in KUBE-FORWARD (upstream). */
  readonly conntrackTCPLiberal: boolean;
  readonly flavour: IptablesFlavour;
  /** Above this many endpoints, per-endpoint rules carry no comment (upstream's large-cluster mode). */
  readonly largeClusterEndpoints: number;
}

export type IptablesConfigInput = Partial<IptablesConfig>;

export const DEFAULT_CONFIG: IptablesConfig = {
  families: ['IPv4', 'IPv6'],
  nodePortAddresses: [],
  localhostNodePorts: true,
  localDetector: { mode: 'None' },
  masqueradeAll: false,
  masqueradeBit: 14,
  conntrackTCPLiberal: false,
  flavour: 'auto',
  largeClusterEndpoints: 1000,
};

/**
 * Fills defaults and refuses anything that could not be rendered safely (core's render-value
 * validators); CIDRs are kept in their canonical form, the only form the rules are written with.
 */
export function resolveConfig(input: IptablesConfigInput = {}): IptablesConfig {
  const problems: string[] = [];
  const canonical = (cidrs: readonly string[]): string[] =>
    cidrs.map((cidr) => {
      const text = typeof cidr === 'string' ? canonicalCIDR(cidr) : undefined;
      if (text === undefined) problems.push(`bad CIDR ${JSON.stringify(cidr)}`);
      return text ?? cidr;
    });
  const merged: IptablesConfig = { ...DEFAULT_CONFIG, ...input };
  const config: IptablesConfig = {
    ...merged,
    nodePortAddresses: merged.nodePortAddresses === 'primary' ? 'primary' : canonical(merged.nodePortAddresses),
    localDetector:
      merged.localDetector.mode === 'ClusterCIDR'
        ? { ...merged.localDetector, clusterCIDRs: canonical(merged.localDetector.clusterCIDRs) }
        : merged.localDetector,
  };
  if (config.families.length === 0 || config.families.some((f) => f !== 'IPv4' && f !== 'IPv6')) {
    problems.push('families must be a non-empty subset of IPv4, IPv6');
  }
  if (!isMarkBit(config.masqueradeBit)) {
    problems.push('masqueradeBit must be an integer in 0..31');
  }
  if (!['auto', 'legacy', 'nft'].includes(config.flavour)) problems.push(`flavour must be auto, legacy or nft`);
  if (!Number.isInteger(config.largeClusterEndpoints) || config.largeClusterEndpoints < 0) {
    problems.push('largeClusterEndpoints must be a non-negative integer');
  }
  const detector = config.localDetector;
  if (detector.mode === 'BridgeInterface' && !isInterfaceName(detector.bridge)) {
    problems.push(`bad bridge interface name ${JSON.stringify(detector.bridge)}`);
  }
  if (detector.mode === 'InterfaceNamePrefix' && !isInterfaceName(detector.prefix)) {
    problems.push(`bad interface name prefix ${JSON.stringify(detector.prefix)}`);
  }
  if (problems.length > 0) throw new Error(`invalid iptables backend configuration: ${problems.join('; ')}`);
  return config;
}

/** `0x4000`: the masquerade mark as iptables prints it. */
export function masqueradeMark(config: IptablesConfig): string {
  return `0x${((1 << config.masqueradeBit) >>> 0).toString(16)}`;
}
