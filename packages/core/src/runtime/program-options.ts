import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { parseDurationMs } from '@kpng/kit';
import { parseListenAddress, type ListenAddress } from '../util/address.js';
import { needsTls, parseDialAddress } from '../stream/stream-address.js';
import type { BackendModule, FlagValues } from './backend-module.js';
import { API_TLS, GLOBAL_TLS, STREAM_TLS_FLAGS, streamTlsFlags } from './stream-tls-flags.js';
import { UsageError } from './usage-error.js';
import type { StreamTlsFiles } from '../stream/tls.js';
import type { LogFormat } from '../util/log.js';
import { parseVModule, type VModuleRule } from '../util/vmodule.js';

export type SourceKind = 'kube' | 'file' | 'api' | 'connect';
export type OutputFormat = 'summary' | 'json' | 'yaml';

/** What every kpng program can be told on its command line (the backend's own flags aside), validated. */
export interface ProgramOptions {
  /** undefined: decide at start (kube when a cluster is configured, else the example cluster where allowed). */
  readonly source?: SourceKind;
  readonly kubeconfig?: string;
  readonly master?: string;
  readonly file?: string;
  /** A central core's global stream. */
  readonly api?: string;
  /** A core's node-local stream. */
  readonly connect?: string;
  readonly nodeName?: string;
  readonly serviceProxyName?: string;
  readonly netns?: string;
  /** Node-local stream; undefined = disabled. */
  readonly listen?: ListenAddress;
  /** Global model stream (central-core mode); undefined = disabled. */
  readonly globalListen?: ListenAddress;
  /** Mutual TLS of the global stream served (`--global-tls-*`); required off loopback. */
  readonly globalTls?: StreamTlsFiles;
  /** Mutual TLS to the central core (`--api-tls-*`); required off loopback. */
  readonly apiTls?: StreamTlsFiles;
  readonly metricsBindAddress?: ListenAddress;
  readonly healthzBindAddress?: ListenAddress;
  /** `kpng --backend`: which backend module to load (resolved before parsing, see `backendName`). */
  readonly backend?: string;
  readonly minSyncPeriodMs: number;
  readonly syncPeriodMs: number;
  readonly fullSyncPeriodMs: number;
  readonly dryRun: boolean;
  /** `--policy-view`: keep the node-local policy view (Pods, Namespaces, NetworkPolicies watched) and serve it on the stream. */
  readonly policyView: boolean;
  readonly cleanup: boolean;
  readonly output: OutputFormat;
  readonly verbosity: number;
  /** `--vmodule pattern=N,...`: per-module verbosity (klog). */
  readonly vmodule: readonly VModuleRule[];
  /** `--logging-format`: klog text (default) or component-base JSON. */
  readonly loggingFormat: LogFormat;
  readonly help: boolean;
  readonly version: boolean;
}

export interface ProgramFlagsSpec {
  /** Program name for messages (`kpng`, `kpng-nft`). */
  readonly program: string;
  /** The backend whose own flags are accepted too. */
  readonly backend?: BackendModule<unknown>;
  /** Accept `--backend MODULE` (kpng). */
  readonly selectsBackend?: boolean;
  /** The node-local stream address when `--listen` is not given (kpng serves one; backend programs don't). */
  readonly listenDefault?: string;
}

export interface ParsedProgramFlags {
  readonly options: ProgramOptions;
  /** The backend's own flags, by name, for its `parseFlags`. */
  readonly backendValues: FlagValues;
}

export const DEFAULT_SOCKET = 'unix:///run/kpng/kpng.sock';

const COMMON_FLAGS = {
  source: { type: 'string' },
  kubeconfig: { type: 'string' },
  master: { type: 'string' },
  file: { type: 'string' },
  api: { type: 'string' },
  connect: { type: 'string' },
  'node-name': { type: 'string' },
  'hostname-override': { type: 'string' },
  'service-proxy-name': { type: 'string' },
  netns: { type: 'string' },
  listen: { type: 'string' },
  'global-listen': { type: 'string' },
  ...STREAM_TLS_FLAGS,
  'metrics-bind-address': { type: 'string' },
  'healthz-bind-address': { type: 'string' },
  'min-sync-period': { type: 'string' },
  'sync-period': { type: 'string' },
  'full-sync-period': { type: 'string' },
  'dry-run': { type: 'boolean' },
  'policy-view': { type: 'boolean' },
  cleanup: { type: 'boolean' },
  output: { type: 'string', short: 'o' },
  v: { type: 'string', short: 'v' },
  vmodule: { type: 'string' },
  'logging-format': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

type ParseArgsOption = { type: 'string' | 'boolean'; short?: string; multiple?: boolean };

export { UsageError };

/** The value of `--backend` in `argv`, if any: it decides which flags the rest of `argv` may use. */
export function backendName(argv: readonly string[]): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg === '--backend') found = argv[++i];
    else if (arg.startsWith('--backend=')) found = arg.slice('--backend='.length);
  }
  return found;
}

/** Parses `argv` (without node and script). Throws `UsageError` naming the flag and the problem. */
export function parseProgramFlags(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  spec: ProgramFlagsSpec,
): ParsedProgramFlags {
  const options: Record<string, ParseArgsOption> = { ...COMMON_FLAGS };
  if (spec.selectsBackend) options['backend'] = { type: 'string' };
  const own = spec.backend?.flags ?? {};
  for (const [name, flag] of Object.entries(own)) {
    if (name in options) throw new Error(`backend ${spec.backend!.name}: flag --${name} is already a common flag`);
    options[name] = { type: flag.type, ...(flag.multiple ? { multiple: true } : {}) };
  }
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(`${(e as Error).message.replace(/\. To specify.*$/s, '')} (see ${spec.program} --help)`);
  }
  const { values, positionals } = parsed;
  if (positionals.length > 0 && !(positionals.length === 1 && positionals[0] === 'run')) {
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])} (see ${spec.program} --help)`);
  }
  const backendValues: Record<string, string | boolean | readonly string[] | undefined> = {};
  for (const name of Object.keys(own)) backendValues[name] = values[name] as string | boolean | string[] | undefined;
  return { options: commonOptions(values as CommonValues, env, spec), backendValues };
}

type CommonValues = {
  [K in keyof typeof COMMON_FLAGS]?: (typeof COMMON_FLAGS)[K]['type'] extends 'boolean' ? boolean : string;
} & {
  backend?: string;
};

function commonOptions(v: CommonValues, env: NodeJS.ProcessEnv, spec: ProgramFlagsSpec): ProgramOptions {
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
    const ms = flag(name, raw, parseDurationMs) ?? dflt;
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

  const given = (['file', 'api', 'connect'] as const).filter((k) => v[k] !== undefined);
  if (given.length > 1 || (given.length === 1 && (v.kubeconfig !== undefined || v.master !== undefined))) {
    throw new UsageError(
      `choose one source: --${[...given, ...(v.kubeconfig !== undefined || v.master !== undefined ? ['kubeconfig/--master'] : [])].join(', --')}`,
    );
  }
  // Checked here, not at the first dial: gRPC would retry a malformed target forever.
  const api = flag('api', v.api, parseDialAddress);
  const connect = flag('connect', v.connect, parseDialAddress);
  if (connect && needsTls(connect)) {
    throw new UsageError(
      `--connect: ${JSON.stringify(v.connect)} is not a unix socket or loopback address; a core serves its node-local stream only there`,
    );
  }
  const source = oneOf<SourceKind>('source', v.source, ['kube', 'file', 'api', 'connect']) ?? given[0];
  if (source === 'api' && !v.api) throw new UsageError('--source=api needs --api=<address of the central core>');
  if (source === 'connect' && !v.connect) throw new UsageError('--source=connect needs --connect=<address of a core>');
  if (source === 'connect' && !spec.backend && !v.backend) throw new UsageError('--connect needs a backend to feed');
  const verbosity = flag('v', v.v, (s) => {
    if (!/^\d+$/.test(s)) throw new Error(`must be a non-negative integer, got ${JSON.stringify(s)}`);
    return Number(s);
  });
  const nodeName = v['node-name'] ?? v['hostname-override'] ?? env['NODE_NAME'];
  const minSyncPeriodMs = duration('min-sync-period', v['min-sync-period'], 0);
  const syncPeriodMs = duration('sync-period', v['sync-period'], 30_000);
  if (syncPeriodMs === 0) throw new UsageError('--sync-period: must be greater than 0');
  if (minSyncPeriodMs > syncPeriodMs) {
    throw new UsageError(
      `--min-sync-period (${v['min-sync-period']}) must not exceed --sync-period (${v['sync-period'] ?? '30s'})`,
    );
  }
  const listen = source === 'connect' ? v.listen : (v.listen ?? spec.listenDefault);
  const globalListen = address('global-listen', v['global-listen']);
  const localListen = address('listen', listen);
  if (localListen && needsTls(localListen)) {
    throw new UsageError(
      `--listen: ${JSON.stringify(listen)} is not a unix socket or loopback address; the node-local stream is served only there`,
    );
  }

  return {
    ...(source ? { source } : {}),
    ...(v.kubeconfig !== undefined ? { kubeconfig: v.kubeconfig } : {}),
    ...(v.master !== undefined ? { master: v.master } : {}),
    ...(v.file !== undefined ? { file: v.file } : {}),
    ...(v.api !== undefined ? { api: v.api } : {}),
    ...(v.connect !== undefined ? { connect: v.connect } : {}),
    ...(nodeName ? { nodeName } : {}),
    ...(v['service-proxy-name'] !== undefined ? { serviceProxyName: v['service-proxy-name'] } : {}),
    ...(v.netns !== undefined ? { netns: v.netns } : {}),
    ...optional('listen', localListen),
    ...optional('globalListen', globalListen),
    ...optional('globalTls', streamTlsFlags(GLOBAL_TLS, globalListen, v)),
    ...optional('apiTls', streamTlsFlags(API_TLS, api, v)),
    ...optional('metricsBindAddress', address('metrics-bind-address', v['metrics-bind-address'] ?? '127.0.0.1:10249')),
    ...optional('healthzBindAddress', address('healthz-bind-address', v['healthz-bind-address'] ?? '0.0.0.0:10256')),
    ...(v.backend !== undefined ? { backend: v.backend } : {}),
    minSyncPeriodMs,
    syncPeriodMs,
    fullSyncPeriodMs: duration('full-sync-period', v['full-sync-period'], 3_600_000),
    dryRun: v['dry-run'] ?? false,
    policyView: v['policy-view'] ?? false,
    cleanup: v.cleanup ?? false,
    output: oneOf<OutputFormat>('output', v.output, ['summary', 'json', 'yaml']) ?? 'summary',
    verbosity: verbosity ?? 0,
    vmodule: flag('vmodule', v.vmodule, parseVModule) ?? [],
    loggingFormat: oneOf<LogFormat>('logging-format', v['logging-format'], ['text', 'json']) ?? 'text',
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
