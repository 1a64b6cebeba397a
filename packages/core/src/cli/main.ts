#!/usr/bin/env node
import { readFileSync, realpathSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { register } from 'prom-client';
import { Core } from '../runtime/core.js';
import { runKpng } from '../runtime/run-kpng.js';
import { attachStreamServers } from '../runtime/attach-streams.js';
import type { NodeName } from '../model/types.js';
import type { NodeLocalState } from '../nodeview/types.js';
import type { Backend } from '../sync/backend.js';
import { formatListenAddress } from '../util/address.js';
import { configureLogging, log } from '../util/log.js';
import { chooseSource } from './choose-source.js';
import { LogBackend } from './log-backend.js';
import { defaultNodeName, parseOptions, USAGE, UsageError, type KpngOptions } from './options.js';
import { formatState } from './print-state.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** `kpng`: core alone (serving the stream), or core plus an in-process backend. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let opts: KpngOptions;
  try {
    opts = parseOptions(argv, env);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`kpng: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  if (opts.help) return void process.stdout.write(USAGE), 0;
  if (opts.version) return void process.stdout.write(`kpng ${VERSION}\n`), 0;
  configureLogging({ verbosity: opts.verbosity });

  let chosen;
  try {
    chosen = chooseSource(opts, opts.nodeName, register, env);
  } catch (e) {
    process.stderr.write(`kpng: ${(e as Error).message}\n`);
    return 2;
  }
  const nodeName = (opts.nodeName ?? chosen.defaultNodeName ?? defaultNodeName()) as NodeName;
  log.info('starting kpng', { version: VERSION, node: nodeName, source: chosen.description });

  if (opts.dryRun) return dryRun(opts, nodeName, chosen.source);

  let backend: Backend | undefined;
  if (opts.backend !== undefined) backend = await loadBackend(opts, nodeName);

  const kpng = await runKpng({
    nodeName,
    source: chosen.source,
    ...(backend ? { backend } : {}),
    attach: [attachStreamServers({ ...(opts.listen ? { local: opts.listen } : {}), ...(opts.globalListen ? { global: opts.globalListen } : {}) })],
    ...(opts.metricsBindAddress ? { metricsBindAddress: opts.metricsBindAddress } : {}),
    ...(opts.healthzBindAddress ? { healthzBindAddress: opts.healthzBindAddress } : {}),
    minSyncPeriodMs: opts.minSyncPeriodMs,
    syncPeriodMs: opts.syncPeriodMs,
    fullSyncPeriodMs: opts.fullSyncPeriodMs,
    proxyMode: backend?.name ?? 'kpng-core',
    configz: { ...opts, nodeName },
    extraRegistries: [register],
  });
  const serving = [
    opts.listen ? `stream ${formatListenAddress(opts.listen)}` : '',
    opts.globalListen ? `global stream ${formatListenAddress(opts.globalListen)}` : '',
    kpng.metricsServer ? `metrics http://${hostPort(kpng.metricsServer.address)}/metrics` : '',
    kpng.healthServer?.address() ? `health http://${hostPort(kpng.healthServer.address()!)}/healthz` : '',
  ].filter(Boolean);
  log.info('serving', { endpoints: serving });

  if (!backend) {
    kpng.firstState.then((state) => process.stdout.write(formatState(state, opts.output)), () => {});
  }
  const stop = async (signal: string) => {
    log.info('stopping', { signal });
    await kpng.stop();
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  try {
    await kpng.done;
    return 0;
  } catch {
    await kpng.stop();
    return 1;
  }
}

function hostPort(a: AddressInfo): string {
  return a.family === 'IPv6' ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
}

/** Runs the source until the first complete node-local state, prints it, and exits. */
async function dryRun(opts: KpngOptions, nodeName: NodeName, source: import('../watch/source.js').Source): Promise<number> {
  const core = new Core({ nodeName });
  const abort = new AbortController();
  const state = new Promise<NodeLocalState>((resolve) => core.addLocalConsumer({ publish: (s) => resolve(s) }));
  const running = source.run(core.model, abort.signal);
  const result = await Promise.race([state, running.then(() => undefined)]);
  abort.abort();
  await running.catch(() => {});
  if (!result) {
    process.stderr.write('kpng: the source stopped before delivering a complete state\n');
    return 1;
  }
  process.stdout.write(formatState(result, opts.output));
  return 0;
}

/** `--backend log`, or a backend package exporting `createBackend({ nodeName })`. */
async function loadBackend(opts: KpngOptions, nodeName: NodeName): Promise<Backend> {
  if (opts.backend === 'log') return new LogBackend(opts.output);
  const mod = (await import(opts.backend!)) as { createBackend?: (o: { nodeName: string }) => Backend | Promise<Backend> };
  if (typeof mod.createBackend !== 'function') {
    throw new UsageError(`--backend ${opts.backend}: the module does not export createBackend()`);
  }
  return mod.createBackend({ nodeName });
}

// Run when executed as a program (not when imported by tests).
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      log.error('fatal', { err: e });
      process.exit(1);
    },
  );
}
