import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { parseDuration } from '../util/duration.js';
import { parseListenAddress, type ListenAddress } from '../util/address.js';

export type SourceKind = 'kube' | 'file' | 'api';
export type OutputFormat = 'summary' | 'json' | 'yaml';

/** Everything `kpng` can be told on its command line, validated. */
export interface KpngOptions {
  /** undefined: decide at start (kube when a cluster is configured, else the example cluster). */
  readonly source?: SourceKind;
  readonly kubeconfig?: string;
  readonly master?: string;
  readonly file?: string;
  readonly api?: string;
  readonly nodeName?: string;
  readonly serviceProxyName?: string;
  /** Node-local stream; undefined = disabled. */
  readonly listen?: ListenAddress;
  /** Global model stream (central-core mode); undefined = disabled. */
  readonly globalListen?: ListenAddress;
  readonly metricsBindAddress?: ListenAddress;
  readonly healthzBindAddress?: ListenAddress;
  readonly backend?: string;
  readonly minSyncPeriodMs: number;
  readonly syncPeriodMs: number;
  readonly fullSyncPeriodMs: number;
  readonly dryRun: boolean;
  readonly output: OutputFormat;
  readonly verbosity: number;
  readonly help: boolean;
  readonly version: boolean;
}

export const DEFAULT_SOCKET = 'unix:///run/kpng/kpng.sock';

const FLAGS = {
  source: { type: 'string' },
  kubeconfig: { type: 'string' },
  master: { type: 'string' },
  file: { type: 'string' },
  api: { type: 'string' },
  'node-name': { type: 'string' },
  'hostname-override': { type: 'string' },
  'service-proxy-name': { type: 'string' },
  listen: { type: 'string' },
  'global-listen': { type: 'string' },
  'metrics-bind-address': { type: 'string' },
  'healthz-bind-address': { type: 'string' },
  backend: { type: 'string' },
  'min-sync-period': { type: 'string' },
  'sync-period': { type: 'string' },
  'full-sync-period': { type: 'string' },
  'dry-run': { type: 'boolean' },
  output: { type: 'string', short: 'o' },
  v: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Parses `argv` (without node and script). Throws `UsageError` naming the flag and the problem. */
export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): KpngOptions {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: FLAGS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(`${(e as Error).message.replace(/\. To specify.*$/s, '')} (see kpng --help)`);
  }
  const { values: v, positionals } = parsed;
  if (positionals.length > 0 && !(positionals.length === 1 && positionals[0] === 'run')) {
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])} (see kpng --help)`);
  }
  const flag = <T>(name: string, raw: string | undefined, parse: (s: string) => T): T | undefined => {
    if (raw === undefined) return undefined;
    try {
      return parse(raw);
    } catch (e) {
      throw new UsageError(`--${name}: ${(e as Error).message}`);
    }
  };
  const address = (name: string, raw: string | undefined) =>
    raw === '' || raw === 'none' ? undefined : flag(name, raw, parseListenAddress);
  const duration = (name: string, raw: string | undefined, dflt: number) => {
    const ms = flag(name, raw, parseDuration) ?? dflt;
    if (ms < 0) throw new UsageError(`--${name}: must not be negative`);
    return ms;
  };
  const oneOf = <T extends string>(name: string, raw: string | undefined, allowed: readonly T[]): T | undefined => {
    if (raw === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(raw)) {
      throw new UsageError(`--${name}: must be one of ${allowed.join(', ')}, got ${JSON.stringify(raw)}`);
    }
    return raw as T;
  };

  let source = oneOf<SourceKind>('source', v.source, ['kube', 'file', 'api']);
  if (!source && v.file !== undefined) source = 'file';
  if (!source && v.api !== undefined) source = 'api';
  if (source === 'api' && !v.api) throw new UsageError('--source=api needs --api=<address of the central core>');
  const verbosity = flag('v', v.v, (s) => {
    if (!/^\d+$/.test(s)) throw new Error(`must be a non-negative integer, got ${JSON.stringify(s)}`);
    return Number(s);
  });
  const nodeName = v['node-name'] ?? v['hostname-override'] ?? env['NODE_NAME'];
  const minSyncPeriodMs = duration('min-sync-period', v['min-sync-period'], 0);
  const syncPeriodMs = duration('sync-period', v['sync-period'], 30_000);
  if (syncPeriodMs === 0) throw new UsageError('--sync-period: must be greater than 0');
  if (minSyncPeriodMs > syncPeriodMs) {
    throw new UsageError(`--min-sync-period (${v['min-sync-period']}) must not exceed --sync-period (${v['sync-period'] ?? '30s'})`);
  }

  return {
    ...(source ? { source } : {}),
    ...(v.kubeconfig !== undefined ? { kubeconfig: v.kubeconfig } : {}),
    ...(v.master !== undefined ? { master: v.master } : {}),
    ...(v.file !== undefined ? { file: v.file } : {}),
    ...(v.api !== undefined ? { api: v.api } : {}),
    ...(nodeName ? { nodeName } : {}),
    ...(v['service-proxy-name'] !== undefined ? { serviceProxyName: v['service-proxy-name'] } : {}),
    ...optional('listen', address('listen', v.listen ?? DEFAULT_SOCKET)),
    ...optional('globalListen', address('global-listen', v['global-listen'])),
    ...optional('metricsBindAddress', address('metrics-bind-address', v['metrics-bind-address'] ?? '127.0.0.1:10249')),
    ...optional('healthzBindAddress', address('healthz-bind-address', v['healthz-bind-address'] ?? '0.0.0.0:10256')),
    ...(v.backend !== undefined ? { backend: v.backend } : {}),
    minSyncPeriodMs,
    syncPeriodMs,
    fullSyncPeriodMs: duration('full-sync-period', v['full-sync-period'], 3_600_000),
    dryRun: v['dry-run'] ?? false,
    output: oneOf<OutputFormat>('output', v.output, ['summary', 'json', 'yaml']) ?? 'summary',
    verbosity: verbosity ?? 0,
    help: v.help ?? false,
    version: v.version ?? false,
  };
}

function optional<K extends string, T>(key: K, value: T | undefined): { [P in K]?: T } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: T };
}

export function defaultNodeName(): string {
  return hostname().toLowerCase();
}

export const USAGE = `kpng: Kubernetes service proxy core

Usage: kpng [run] [flags]

Sources (default: the API server when a kubeconfig or in-cluster config exists,
otherwise the example cluster in examples/cluster.yaml):
  --source kube|file|api       where Services, EndpointSlices and Nodes come from
  --kubeconfig PATH            kubeconfig file (also $KUBECONFIG, ~/.kube/config, in-cluster)
  --master URL                 API server address, overrides the kubeconfig's
  --file PATH                  YAML/JSON manifests (file or directory), re-read on change
  --api ADDRESS                the global stream of a central core (unix:///... or host:port)
  --service-proxy-name NAME    serve only Services labelled service.kubernetes.io/service-proxy-name=NAME
Node:
  --node-name NAME             this node (default $NODE_NAME, else the hostname); alias --hostname-override
Serving:
  --listen ADDRESS             node-local full-state stream (default ${DEFAULT_SOCKET}; "none" disables)
  --global-listen ADDRESS      serve the global model to node agents (central-core mode; default off)
  --metrics-bind-address ADDR  /metrics, /proxyMode, /configz (default 127.0.0.1:10249; "none" disables)
  --healthz-bind-address ADDR  /healthz, /livez (default 0.0.0.0:10256; "none" disables)
In-process backend:
  --backend MODULE             program the kernel in this process: a backend module such as @kpng/nft,
                               or "log" (prints a one-line summary per sync)
  --min-sync-period DURATION   minimum interval between syncs (default 0s: a lone change syncs at once)
  --sync-period DURATION       retry interval after a failed sync; health timeout is twice this (default 30s)
  --full-sync-period DURATION  upper bound between full resyncs (default 1h)
Other:
  --dry-run                    print this node's local state once and exit
  -o, --output FORMAT          summary|json|yaml, for --dry-run and the log backend (default summary)
  --v N                        log verbosity (klog-style)
  --version, -h/--help
`;
