import { programHealthCheckAddresses } from './health-check-bind.js';
import { readFileSync } from 'node:fs';
import { Registry } from 'prom-client';
import { nodeName as toNodeName } from '../model/types.js';
import type { Backend } from '../sync/backend.js';
import { formatListenAddress } from '../util/address.js';
import { configureLogging, log } from '../util/log.js';
import type { BackendContext, BackendModule } from './backend-module.js';
import { chooseSource } from './choose-source.js';
import { formatState } from './print-state.js';
import { defaultNodeName, parseProgramFlags, UsageError, type ProgramOptions } from './program-options.js';
import { runProxy, type RunningProxy, type StreamSource } from './run-proxy.js';
import { terminationSignal } from './signals.js';
import { readFlagTls } from './stream-tls-flags.js';
import type { StreamTls } from '../stream/tls.js';
import { usage } from './usage.js';
import type { Source } from '../watch/source.js';

const CORE_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export interface ProgramSettings {
  /** Program name (default: the backend's `program`). */
  readonly program?: string;
  /** `--version` answer (default: core's version). */
  readonly version?: string;
  /** One line for `--help` (default: the backend's summary). */
  readonly summary?: string;
  /** Accept `--backend MODULE`; the module was loaded by the caller (kpng). */
  readonly selectsBackend?: boolean;
  /** Serve the node-local stream here unless `--listen` says otherwise (kpng). */
  readonly listenDefault?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Stops the program like SIGTERM (tests). */
  readonly signal?: AbortSignal;
  /** Called once the proxy runs (tests read server addresses here). */
  readonly onStarted?: (running: RunningProxy) => void;
}

/**
 * A whole kpng program: flags (common and the backend's own), `--help`, `--version`, `--cleanup`,
 * `--dry-run`, the source, the servers, signals and the exit code (0 stopped, 1 failed, 2 usage).
 * `kpng-<backend>` is `runProgram(backend)`; `kpng` is `runProgram(<module named by --backend>)`.
 */
export async function runProgram(
  module: BackendModule<unknown> | undefined,
  argv: readonly string[] = process.argv.slice(2),
  settings: ProgramSettings = {},
): Promise<number> {
  const program = settings.program ?? module?.program ?? 'kpng';
  const env = settings.env ?? process.env;
  const exampleFallback = module === undefined || module.programsKernel === false;
  const spec = {
    program,
    ...(module ? { backend: module } : {}),
    ...(settings.selectsBackend ? { selectsBackend: true } : {}),
    ...(settings.listenDefault !== undefined ? { listenDefault: settings.listenDefault } : {}),
  };
  let opts: ProgramOptions;
  let backendOptions: unknown;
  try {
    const parsed = parseProgramFlags(argv, env, spec);
    opts = parsed.options;
    if (!opts.help && !opts.version && module) backendOptions = parseBackendFlags(module, parsed.backendValues);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`${program}: ${e.message}\n`);
    return 2;
  }
  if (opts.help) {
    const summary = settings.summary ?? module?.summary ?? 'Kubernetes service proxy';
    process.stdout.write(usage({ ...spec, summary, exampleFallback }));
    return 0;
  }
  if (opts.version) return (void process.stdout.write(`${program} ${settings.version ?? CORE_VERSION}\n`), 0);
  configureLogging({ verbosity: opts.verbosity, vmodule: opts.vmodule, format: opts.loggingFormat });
  if ((opts.cleanup || opts.source === 'connect') && module === undefined) {
    process.stderr.write(`${program}: --${opts.cleanup ? 'cleanup' : 'connect'} needs a backend\n`);
    return 2;
  }

  const registry = new Registry();
  const context = (node: string): BackendContext => ({
    nodeName: node,
    registry,
    ...(opts.netns !== undefined ? { netns: opts.netns } : {}),
  });
  if (opts.cleanup) {
    await (await module!.create(backendOptions, context(opts.nodeName ?? defaultNodeName()))).cleanup();
    log.info('cleaned up', { backend: module!.name, ...(opts.netns !== undefined ? { netns: opts.netns } : {}) });
    return 0;
  }

  // The core keeps the policy view for an enforcer in process, or to serve it (`--policy-view`);
  // over `--connect` it arrives computed on the stream.
  const policy = module?.policy === true || opts.policyView;
  let source: Source | StreamSource;
  let nodeName = opts.nodeName;
  let description: string;
  let globalTls: StreamTls | undefined;
  try {
    globalTls = await readFlagTls(opts.globalTls);
    const apiTls = await readFlagTls(opts.apiTls);
    if (opts.source === 'connect') {
      source = { kind: 'connect', address: opts.connect! };
      description = `core's stream at ${opts.connect}`;
    } else {
      const chosen = chooseSource(opts, nodeName, registry, env, exampleFallback, apiTls, policy);
      source = chosen.source;
      description = chosen.description;
      nodeName ??= chosen.defaultNodeName;
    }
  } catch (e) {
    process.stderr.write(`${program}: ${(e as Error).message}\n`);
    return 2;
  }
  const node = toNodeName(nodeName ?? defaultNodeName());
  const ctx = context(node);

  log.info(`starting ${program}`, {
    version: settings.version ?? CORE_VERSION,
    node,
    source: description,
    ...(module ? { backend: module.name } : {}),
  });
  if (opts.dryRun) return dryRun(opts, node, source, program);

  const stop = terminationSignal(settings.signal);
  let backend: Backend | undefined;
  try {
    backend = module ? await module.create(backendOptions, ctx) : undefined;
    const proxy = await runProxy({
      nodeName: node,
      source,
      ...(backend ? { backend } : {}),
      ...(policy && opts.source !== 'connect' ? { policy: true } : {}),
      ...(opts.listen ? { listen: opts.listen } : {}),
      ...(opts.globalListen ? { globalListen: opts.globalListen } : {}),
      ...(globalTls ? { globalTls } : {}),
      ...(opts.metricsBindAddress ? { metricsBindAddress: opts.metricsBindAddress } : {}),
      ...(opts.healthzBindAddress ? { healthzBindAddress: opts.healthzBindAddress } : {}),
      ...(opts.netns !== undefined ? { healthCheckAddresses: programHealthCheckAddresses(opts.netns)! } : {}),
      minSyncPeriodMs: opts.minSyncPeriodMs,
      syncPeriodMs: opts.syncPeriodMs,
      fullSyncPeriodMs: opts.fullSyncPeriodMs,
      proxyMode: module?.proxyMode ?? 'kpng-core',
      configz: { ...opts, nodeName: node, ...(module ? { backend: module.name, backendOptions } : {}) },
      registry,
      signal: stop.signal,
    });
    log.info('serving', { endpoints: serving(opts, proxy) });
    settings.onStarted?.(proxy);
    if (!backend)
      proxy.firstState.then(
        (state) => process.stdout.write(formatState(state, opts.output)),
        () => {},
      );
    try {
      await proxy.done;
      await proxy.stop();
      log.info(`stopped ${program}`, {
        reason: stop.signal.aborted
          ? String((stop.signal.reason as Error | undefined)?.message ?? 'stopped')
          : 'source ended',
      });
      return 0;
    } catch {
      await proxy.stop();
      return 1;
    }
  } finally {
    stop.dispose();
  }
}

/** A program's `main(argv, env, signal, settings)`; `signal` stops it like SIGTERM (tests). */
export type ProgramMain = (
  argv: readonly string[],
  env?: NodeJS.ProcessEnv,
  signal?: AbortSignal,
  settings?: ProgramSettings,
) => Promise<number>;

/**
 * A backend's own program (`kpng-<name>`), versioned by its package:
 * `export const main = backendProgram(backend, new URL('../../package.json', import.meta.url))`.
 */
export function backendProgram(module: BackendModule<unknown>, packageJson: URL): ProgramMain {
  const version = (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
  return (argv, env = process.env, signal, settings = {}) =>
    runProgram(module, argv, { version, env, ...(signal ? { signal } : {}), ...settings });
}

function parseBackendFlags(
  module: BackendModule<unknown>,
  values: Parameters<BackendModule['parseFlags']>[0],
): unknown {
  try {
    return module.parseFlags(values);
  } catch (e) {
    // A backend validates its own flags: whatever it rejects is a usage problem, reported as such.
    throw e instanceof UsageError ? e : new UsageError((e as Error).message);
  }
}

function serving(opts: ProgramOptions, proxy: RunningProxy): string[] {
  const hostPort = (a: { address: string; port: number; family: string }) =>
    a.family === 'IPv6' ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
  const health = proxy.healthServer?.address();
  return [
    opts.listen ? `stream ${formatListenAddress(opts.listen)}` : '',
    opts.globalListen ? `global stream ${formatListenAddress(opts.globalListen)}` : '',
    proxy.metricsServer ? `metrics http://${hostPort(proxy.metricsServer.address)}/metrics` : '',
    health ? `health http://${hostPort(health)}/healthz` : '',
  ].filter(Boolean);
}

/** Runs the source until the first complete node-local state, prints it, and exits. */
async function dryRun(
  opts: ProgramOptions,
  nodeName: ReturnType<typeof toNodeName>,
  source: Source | StreamSource,
  program: string,
): Promise<number> {
  const proxy = await runProxy({
    nodeName,
    source,
    minSyncPeriodMs: 0,
    syncPeriodMs: 30_000,
    fullSyncPeriodMs: 3_600_000,
    proxyMode: 'dry-run',
  });
  const result = await Promise.race([
    proxy.firstState,
    proxy.done.then(
      () => undefined,
      () => undefined,
    ),
  ]);
  await proxy.stop();
  if (!result) {
    process.stderr.write(`${program}: the source stopped before delivering a complete state\n`);
    return 1;
  }
  process.stdout.write(formatState(result, opts.output));
  return 0;
}
