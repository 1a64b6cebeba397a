#!/usr/bin/env node
import { readFileSync } from 'node:fs';
/**
 * `kpng-nft`: the nftables backend as a program. In-process (a core over a file or the API
 * server, one process, like kube-proxy) or split (`--connect`: consume a core's stream).
 */
import { hostname } from 'node:os';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  configureLogging,
  createCoreMetrics,
  FileSource,
  KubeSource,
  loadKubeConfig,
  log,
  ProxyHealth,
  runKpng,
  startHealthServer,
  startMetricsServer,
  SyncLoop,
  systemClock,
  watchLocalState,
  type NodeName,
  type Source,
} from '@kpng/core';
import { Registry } from 'prom-client';
import { NftBackend } from '../backend/nft-backend.js';
import { parseOptions, USAGE, UsageError, type NftCliOptions } from './options.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** @param signal stops the program (tests); SIGINT and SIGTERM always do. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, signal?: AbortSignal): Promise<number> {
  let opts: NftCliOptions;
  try {
    opts = parseOptions(argv, env, hostname());
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`kpng-nft: ${e.message}\n`);
    return 2;
  }
  if (opts.help) return void process.stdout.write(USAGE), 0;
  if (opts.version) return void process.stdout.write(`kpng-nft ${VERSION}\n`), 0;
  configureLogging({ verbosity: opts.verbosity });
  const registry = new Registry();
  const backend = new NftBackend({ ...opts.config, ...(opts.netns === undefined ? {} : { netns: opts.netns }), metrics: registry });
  if (opts.cleanup) {
    await backend.cleanup();
    log.info('deleted the kpng nftables tables');
    return 0;
  }
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  signal?.addEventListener('abort', onSignal, { once: true });
  try {
    return await (opts.source.kind === 'connect'
      ? split(opts, backend, registry, opts.source.address, stop.signal)
      : inProcess(opts, backend, registry, stop.signal));
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** Core and backend in one process. */
async function inProcess(opts: NftCliOptions, backend: NftBackend, registry: Registry, signal: AbortSignal): Promise<number> {
  const source: Source =
    opts.source.kind === 'file'
      ? new FileSource({ path: opts.source.path, nodeName: opts.nodeName })
      : new KubeSource({
          kubeConfig: loadKubeConfig({
            ...(opts.source.kind === 'kube' && opts.source.kubeconfig !== undefined ? { kubeconfigPath: opts.source.kubeconfig } : {}),
            ...(opts.source.kind === 'kube' && opts.source.master !== undefined ? { server: opts.source.master } : {}),
          }),
          nodeName: opts.nodeName,
        });
  const kpng = await runKpng({
    nodeName: opts.nodeName as NodeName,
    source,
    backend,
    ...(opts.metricsBindAddress === undefined ? {} : { metricsBindAddress: opts.metricsBindAddress }),
    ...(opts.healthzBindAddress === undefined ? {} : { healthzBindAddress: opts.healthzBindAddress }),
    minSyncPeriodMs: opts.minSyncPeriodMs,
    syncPeriodMs: opts.syncPeriodMs,
    fullSyncPeriodMs: opts.fullSyncPeriodMs,
    proxyMode: 'nftables',
    configz: { ...opts.config, nodeName: opts.nodeName },
    extraRegistries: [registry],
  });
  signal.addEventListener('abort', () => void kpng.stop(), { once: true });
  try {
    await kpng.done;
    return 0;
  } catch (e) {
    log.error('stopped', { err: e });
    return 1;
  }
}

/** A separate core: its stream feeds kube-proxy's sync cadence here. */
async function split(opts: NftCliOptions, backend: NftBackend, registry: Registry, address: string, signal: AbortSignal): Promise<number> {
  const metrics = createCoreMetrics(registry);
  const health = new ProxyHealth({ clock: systemClock, syncPeriodMs: opts.syncPeriodMs, metrics });
  const loop = new SyncLoop({
    backend,
    clock: systemClock,
    minSyncPeriodMs: opts.minSyncPeriodMs,
    syncPeriodMs: opts.syncPeriodMs,
    fullSyncPeriodMs: opts.fullSyncPeriodMs,
    metrics,
    health,
  });
  const closers: { close(): Promise<void> }[] = [];
  if (opts.metricsBindAddress?.kind === 'tcp') {
    closers.push(await startMetricsServer({ host: opts.metricsBindAddress.host, port: opts.metricsBindAddress.port, registry, proxyMode: 'nftables' }));
  }
  if (opts.healthzBindAddress?.kind === 'tcp') {
    closers.push(await startHealthServer({ host: opts.healthzBindAddress.host, port: opts.healthzBindAddress.port, health }));
  }
  await loop.start();
  try {
    await watchLocalState(address, (state, info) => loop.offer(state, info.changes, info.revision), { signal });
    return 0;
  } finally {
    await loop.stop();
    await Promise.allSettled(closers.map((c) => c.close()));
  }
}

if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      log.error('fatal', { err: e });
      process.exit(1);
    },
  );
}
