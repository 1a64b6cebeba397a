/**
 * `kpng-nft` flags, named as kube-proxy names them where one exists. Pure: argv and env in,
 * validated options out; every problem is a UsageError with a message for the user.
 */
import { parseArgs } from 'node:util';
import { parseDuration, parseListenAddress, type IPFamily, type ListenAddress } from '@kpng/core';
import { resolveConfig, type LocalDetectorConfig, type NftConfig } from '../render/config.js';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export type SourceOption =
  | { readonly kind: 'connect'; readonly address: string }
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'kube'; readonly kubeconfig?: string; readonly master?: string };

export interface NftCliOptions {
  readonly help: boolean;
  readonly version: boolean;
  readonly cleanup: boolean;
  readonly source: SourceOption;
  readonly nodeName: string;
  readonly netns?: string;
  readonly config: NftConfig;
  readonly metricsBindAddress?: ListenAddress;
  readonly healthzBindAddress?: ListenAddress;
  readonly minSyncPeriodMs: number;
  readonly syncPeriodMs: number;
  readonly fullSyncPeriodMs: number;
  readonly verbosity: number;
}

export const USAGE = `Usage: kpng-nft [source] [options]

kpng's nftables backend: programs tables "ip kpng" and "ip6 kpng" (and nothing else).

Source (one of):
  --connect ADDRESS              consume a core's node-local stream (unix:///run/kpng/kpng.sock, 127.0.0.1:PORT)
  --file PATH                    run a core in-process over manifests (Services, EndpointSlices, Nodes)
  --kubeconfig PATH, --master URL   run a core in-process against the API server (the default)

Backend:
  --node-name NAME               this node (default: $NODE_NAME, else the host name)
  --nodeport-addresses LIST      "primary" (default) or CIDRs, comma separated (0.0.0.0/0 = every address)
  --detect-local-mode MODE       None|ClusterCIDR|NodeCIDR|BridgeInterface|InterfaceNamePrefix (default None,
                                 or ClusterCIDR when --cluster-cidr is given)
  --cluster-cidr LIST            pod CIDRs of the cluster, comma separated
  --pod-bridge-interface NAME    for BridgeInterface
  --pod-interface-name-prefix P  for InterfaceNamePrefix
  --service-cidrs LIST           service CIDRs: traffic to unallocated addresses in them is dropped
  --masquerade-all               masquerade all ClusterIP traffic
  --masquerade-bit N             mark bit for masquerading (default 14)
  --ip-families LIST             IPv4,IPv6 (default both)
  --netns NAME                   program the tables of this network namespace (tests, benchmarks)
  --cleanup                      delete the kpng tables and exit

Cadence and servers:
  --min-sync-period D (default 0s)  --sync-period D (30s)  --full-sync-period D (1h)
  --metrics-bind-address A (127.0.0.1:10249)  --healthz-bind-address A (0.0.0.0:10256); "" disables
  -v, --v N                      log verbosity
  --version, -h/--help
`;

const csv = (text: string | undefined): string[] => (text === undefined || text.trim() === '' ? [] : text.split(',').map((s) => s.trim()).filter(Boolean));

function detector(values: Record<string, string | boolean | undefined>): LocalDetectorConfig {
  const clusterCIDRs = csv(values['cluster-cidr'] as string | undefined);
  const mode = (values['detect-local-mode'] as string | undefined) ?? (clusterCIDRs.length > 0 ? 'ClusterCIDR' : 'None');
  switch (mode) {
    case 'None':
      return { mode };
    case 'ClusterCIDR':
      if (clusterCIDRs.length === 0) throw new UsageError('--detect-local-mode ClusterCIDR needs --cluster-cidr');
      return { mode, clusterCIDRs };
    case 'NodeCIDR':
      return { mode };
    case 'BridgeInterface': {
      const bridge = values['pod-bridge-interface'] as string | undefined;
      if (bridge === undefined) throw new UsageError('--detect-local-mode BridgeInterface needs --pod-bridge-interface');
      return { mode, bridge };
    }
    case 'InterfaceNamePrefix': {
      const prefix = values['pod-interface-name-prefix'] as string | undefined;
      if (prefix === undefined) throw new UsageError('--detect-local-mode InterfaceNamePrefix needs --pod-interface-name-prefix');
      return { mode, prefix };
    }
    default:
      throw new UsageError(`unknown --detect-local-mode ${JSON.stringify(mode)}`);
  }
}

function duration(text: string | undefined, fallback: number, flag: string): number {
  if (text === undefined) return fallback;
  try {
    return parseDuration(text);
  } catch {
    throw new UsageError(`${flag}: not a duration: ${JSON.stringify(text)}`);
  }
}

function listen(text: string | undefined, fallback: string, flag: string): ListenAddress | undefined {
  const value = text ?? fallback;
  if (value === '') return undefined;
  try {
    return parseListenAddress(value);
  } catch (e) {
    throw new UsageError(`${flag}: ${(e as Error).message}`);
  }
}

export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, hostname = 'localhost'): NftCliOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
        cleanup: { type: 'boolean' },
        connect: { type: 'string' },
        file: { type: 'string' },
        kubeconfig: { type: 'string' },
        master: { type: 'string' },
        'node-name': { type: 'string' },
        'nodeport-addresses': { type: 'string' },
        'detect-local-mode': { type: 'string' },
        'cluster-cidr': { type: 'string' },
        'pod-bridge-interface': { type: 'string' },
        'pod-interface-name-prefix': { type: 'string' },
        'service-cidrs': { type: 'string' },
        'masquerade-all': { type: 'boolean' },
        'masquerade-bit': { type: 'string' },
        'ip-families': { type: 'string' },
        netns: { type: 'string' },
        'min-sync-period': { type: 'string' },
        'sync-period': { type: 'string' },
        'full-sync-period': { type: 'string' },
        'metrics-bind-address': { type: 'string' },
        'healthz-bind-address': { type: 'string' },
        v: { type: 'string', short: 'v' },
      },
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const v = parsed.values;
  const sources = [v.connect, v.file, v.kubeconfig ?? v.master].filter((s) => s !== undefined);
  if (sources.length > 1) throw new UsageError('choose one source: --connect, --file, or --kubeconfig/--master');
  const source: SourceOption =
    v.connect !== undefined
      ? { kind: 'connect', address: v.connect }
      : v.file !== undefined
        ? { kind: 'file', path: v.file }
        : { kind: 'kube', ...(v.kubeconfig === undefined ? {} : { kubeconfig: v.kubeconfig }), ...(v.master === undefined ? {} : { master: v.master }) };
  const nodePorts = v['nodeport-addresses'];
  const families = csv(v['ip-families']);
  if (families.some((f) => f !== 'IPv4' && f !== 'IPv6')) throw new UsageError('--ip-families takes IPv4, IPv6');
  const bit = v['masquerade-bit'] === undefined ? undefined : Number(v['masquerade-bit']);
  let config: NftConfig;
  try {
    config = resolveConfig({
      ...(families.length > 0 ? { families: families as IPFamily[] } : {}),
      ...(nodePorts === undefined || nodePorts === 'primary' ? {} : { nodePortAddresses: csv(nodePorts) }),
      localDetector: detector(v),
      masqueradeAll: v['masquerade-all'] === true,
      ...(bit === undefined ? {} : { masqueradeBit: bit }),
      serviceCIDRs: csv(v['service-cidrs']),
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const verbosity = Number(v.v ?? 0);
  if (!Number.isInteger(verbosity) || verbosity < 0) throw new UsageError('-v takes a non-negative integer');
  const metricsBindAddress = listen(v['metrics-bind-address'], '127.0.0.1:10249', '--metrics-bind-address');
  const healthzBindAddress = listen(v['healthz-bind-address'], '0.0.0.0:10256', '--healthz-bind-address');
  return {
    help: v.help === true,
    version: v.version === true,
    cleanup: v.cleanup === true,
    source,
    nodeName: v['node-name'] ?? env['NODE_NAME'] ?? hostname,
    ...(v.netns === undefined ? {} : { netns: v.netns }),
    config,
    ...(metricsBindAddress === undefined ? {} : { metricsBindAddress }),
    ...(healthzBindAddress === undefined ? {} : { healthzBindAddress }),
    minSyncPeriodMs: duration(v['min-sync-period'], 0, '--min-sync-period'),
    syncPeriodMs: duration(v['sync-period'], 30_000, '--sync-period'),
    fullSyncPeriodMs: duration(v['full-sync-period'], 3_600_000, '--full-sync-period'),
    verbosity,
  };
}
