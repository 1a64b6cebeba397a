/**
 * kube-proxy's local-traffic detector (`--detect-local-mode` and the flags each mode needs) as
 * every Linux backend's flags: one definition, one parser, one configuration shape (semantics 3.15).
 */
import type { BackendFlag, FlagValues } from './backend-module.js';
import { UsageError } from './program-options.js';

export type LocalDetectorConfig =
  | { readonly mode: 'None' }
  /** Traffic from the cluster's pod CIDRs (kube-proxy's Linux default). */
  | { readonly mode: 'ClusterCIDR'; readonly clusterCIDRs: readonly string[] }
  /** Traffic from the node's podCIDRs, read from the node-local state. */
  | { readonly mode: 'NodeCIDR' }
  | { readonly mode: 'BridgeInterface'; readonly bridge: string }
  | { readonly mode: 'InterfaceNamePrefix'; readonly prefix: string };

export const LOCAL_DETECTOR_FLAGS: Readonly<Record<string, BackendFlag>> = {
  'detect-local-mode': {
    type: 'string',
    value: 'MODE',
    help: 'None|ClusterCIDR|NodeCIDR|BridgeInterface|InterfaceNamePrefix',
    default: 'None, or ClusterCIDR with --cluster-cidr',
  },
  'cluster-cidr': { type: 'string', value: 'LIST', help: 'pod CIDRs of the cluster, comma separated' },
  'pod-bridge-interface': { type: 'string', value: 'NAME', help: 'for BridgeInterface' },
  'pod-interface-name-prefix': { type: 'string', value: 'PREFIX', help: 'for InterfaceNamePrefix' },
};

/** `a, b,,c` -> `['a', 'b', 'c']`; absent or blank -> `[]`. */
export function csvFlag(text: string | undefined): string[] {
  return text === undefined || text.trim() === ''
    ? []
    : text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
}

/** The detector from `--detect-local-mode` and its companions; a UsageError names what is missing. */
export function parseLocalDetector(values: FlagValues): LocalDetectorConfig {
  const text = (name: string): string | undefined => values[name] as string | undefined;
  const clusterCIDRs = csvFlag(text('cluster-cidr'));
  const mode = text('detect-local-mode') ?? (clusterCIDRs.length > 0 ? 'ClusterCIDR' : 'None');
  switch (mode) {
    case 'None':
      return { mode };
    case 'ClusterCIDR':
      if (clusterCIDRs.length === 0) throw new UsageError('--detect-local-mode ClusterCIDR needs --cluster-cidr');
      return { mode, clusterCIDRs };
    case 'NodeCIDR':
      return { mode };
    case 'BridgeInterface': {
      const bridge = text('pod-bridge-interface');
      if (bridge === undefined)
        throw new UsageError('--detect-local-mode BridgeInterface needs --pod-bridge-interface');
      return { mode, bridge };
    }
    case 'InterfaceNamePrefix': {
      const prefix = text('pod-interface-name-prefix');
      if (prefix === undefined)
        throw new UsageError('--detect-local-mode InterfaceNamePrefix needs --pod-interface-name-prefix');
      return { mode, prefix };
    }
    default:
      throw new UsageError(`unknown --detect-local-mode ${JSON.stringify(mode)}`);
  }
}
