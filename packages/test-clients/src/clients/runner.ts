import { setMaxListeners } from 'node:events';
import type { KubeConfig } from '@kubernetes/client-node';
import { collectDefaultMetrics, Gauge, register, type Registry } from 'prom-client';
import { metricsOn } from '@kpng/kit';
import type { ServeSettings } from '../config/common.js';
import { FlagError, HelpRequested, VersionRequested, type FlagSet, type ParsedFlags } from '../config/flags.js';
import { PACKAGE_VERSION } from '../util/version.js';
import { loadKubeConfig } from '../kube/kubeconfig.js';
import { startMetricsServer, type MetricsServer } from '../metrics/server.js';
import type { Dialer } from '../probe/dialer.js';
import { tcpDialer } from '../probe/tcp-dialer.js';
import { aborted } from '../util/abort.js';
import { systemClock, type Clock } from '../util/clock.js';
import { jsonLineSink, Logger, type LogSink } from '../util/log.js';
import type { ClientContext } from './context.js';

/** What a client binary plugs into `runClient`. */
export interface ClientSpec<C extends { readonly serve: ServeSettings }> {
  readonly program: string;
  flags(): FlagSet;
  configure(flags: ParsedFlags): C;
  create(config: C, env: ClientEnv): { run(signal: AbortSignal): Promise<void> };
}

export interface ClientEnv extends ClientContext {
  readonly kubeConfig: KubeConfig;
  readonly registry: Registry;
}

/** Anything that emits SIGTERM / SIGINT (the process, or a fake in tests). */
export interface SignalSource {
  on(signal: 'SIGTERM' | 'SIGINT', listener: () => void): unknown;
  off(signal: 'SIGTERM' | 'SIGINT', listener: () => void): unknown;
}

export interface RunDeps {
  readonly stdout?: { write(text: string): unknown };
  readonly stderr?: { write(text: string): unknown };
  readonly signals?: SignalSource;
  readonly clock?: Clock;
  readonly dialer?: Dialer;
  /** Default: prom-client's global registry with the process metrics, as upstream uses Go's. */
  readonly registry?: Registry;
  readonly kubeConfig?: KubeConfig;
  /** Receives log records instead of stdout. */
  readonly logSink?: LogSink;
  /** After the measurement, keep serving metrics until a signal (upstream's idle state). Default true. */
  readonly idle?: boolean;
  readonly onMetricsServer?: (server: MetricsServer) => void;
}

/** Exit codes: 0 done, 1 runtime failure, 2 bad command line (as Go's flag package). */
export async function runClient<C extends { readonly serve: ServeSettings }>(
  spec: ClientSpec<C>,
  argv: readonly string[],
  deps: RunDeps = {},
): Promise<number> {
  const stdout = deps.stdout ?? process.stdout;
  const stderr = deps.stderr ?? process.stderr;
  const flagSet = spec.flags();
  let config: C;
  let flags: ParsedFlags;
  try {
    flags = flagSet.parse(argv);
    if (flags.args.length > 0) throw new FlagError(`unexpected argument ${JSON.stringify(flags.args[0])}`);
    config = spec.configure(flags);
  } catch (error) {
    if (error instanceof HelpRequested) {
      stdout.write(error.message);
      return 0;
    }
    if (error instanceof VersionRequested) {
      stdout.write(`${spec.program} ${PACKAGE_VERSION} (@kpng/test-clients)\n`);
      return 0;
    }
    if (error instanceof FlagError) {
      stderr.write(`${spec.program}: ${error.message}\nRun '${spec.program} -help' to list the flags.\n`);
      return 2;
    }
    throw error;
  }

  const clock = deps.clock ?? systemClock;
  const logger = new Logger(deps.logSink ?? jsonLineSink(stdout), { client: spec.program }, clock);
  logger.info('starting', { flags: flags.all(flagSet.specs) });
  const signals = deps.signals ?? process;
  const stop = new AbortController();
  setMaxListeners(0, stop.signal);
  const onSignal = (name: string) => () => {
    if (!stop.signal.aborted) logger.info('shutting down', { signal: name });
    stop.abort();
  };
  const onTerm = onSignal('SIGTERM');
  const onInt = onSignal('SIGINT');
  signals.on('SIGTERM', onTerm);
  signals.on('SIGINT', onInt);

  let registry = deps.registry;
  if (registry === undefined) {
    registry = register;
    collectDefaultMetrics({ register });
  }
  // Says which binary serves these metrics: upstream's images have no such series. The check
  // script (check-clusterloader2-run) relies on it.
  const mode = (config as { readonly probe?: { readonly mode?: string } }).probe?.mode ?? 'precise';
  const info = metricsOn(registry)(Gauge, {
    name: 'kpng_test_client_info',
    help: 'Always 1: the client program, its version and its measurement mode.',
    labelNames: ['program', 'version', 'mode'],
  });
  info.set({ program: spec.program, version: PACKAGE_VERSION, mode }, 1);
  let server: MetricsServer | undefined;
  try {
    server = await startMetricsServer({
      host: config.serve.metricsBindAddress,
      port: config.serve.metricsPort,
      registry,
      log: logger,
    });
    deps.onMetricsServer?.(server);
    logger.info('serving /metrics and /healthz', {
      address: config.serve.metricsBindAddress || '*',
      port: server.port,
    });
    const kubeConfig = deps.kubeConfig ?? loadKubeConfig(config.serve.kubeconfig);
    const client = spec.create(config, { clock, logger, dialer: deps.dialer ?? tcpDialer, kubeConfig, registry });
    await client.run(stop.signal);
    if (!stop.signal.aborted && (deps.idle ?? true)) {
      logger.info('going into idle state: serving metrics until SIGTERM');
      await aborted(stop.signal);
    }
    return 0;
  } catch (error) {
    logger.error('client failed', { error });
    return 1;
  } finally {
    signals.off('SIGTERM', onTerm);
    signals.off('SIGINT', onInt);
    await server?.close();
    logger.info('stopped');
  }
}
