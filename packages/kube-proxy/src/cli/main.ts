#!/usr/bin/env node
/**
 * `kube-proxy`: kube-proxy's command line and KubeProxyConfiguration in front of kpng's core and
 * backends, in one process. Errors exit 1 with the message on stderr, as upstream's do.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { configureLogging, createLogger, type Logger } from '@kpng/core';
import { runAsMain, terminationSignal, type RunningProxy } from '@kpng/core/runtime';
import { completeConfiguration, CompleteError, type Completed } from '../config/complete.js';
import { configurationYaml } from '../config/encode.js';
import { aggregate, type FieldError } from '../config/field-error.js';
import { PROXY_MODES } from '../config/types.js';
import { concerns } from '../config/changed-fields.js';
import { validateConfiguration } from '../config/validate.js';
import { FlagError, parseFlags, type ParsedFlags } from '../flags/parse.js';
import { BindError } from '../run/bind-check.js';
import { ConfigChangedError } from '../run/config-watch.js';
import { conntrackSysctls } from '../run/conntrack.js';
import { applySysctls, sysctlAccess, type SysctlAccess } from '../run/sysctl.js';
import { kernelTcpBeLiberal } from '../run/tcp-be-liberal.js';
import { AVAILABLE_MODES, DEFAULT_MODE, MODES } from '../run/modes.js';
import { featureGateWarnings, unsupportedSettingWarnings } from '../run/notices.js';
import { serve } from '../run/serve.js';
import { plan } from '../run/leftovers.js';
import { nftTablesOf } from '../run/nft-options.js';
import { removeLeftovers } from '../run/platform-cleanup.js';
import { usage } from './usage.js';
import { VERSION, versionText } from './version.js';

export interface MainIO {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Stops the running proxy. Default: SIGINT or SIGTERM. */
  readonly signal?: AbortSignal;
  readonly readFile: (path: string) => string;
  readonly writeFile: (path: string, text: string) => void;
  /** Called once the proxy runs (tests read server addresses here). */
  readonly onStarted?: (running: RunningProxy) => void;
  readonly cpuCores: number;
  /** Sets this process's OOM score adjustment. Default: writes /proc/self/oom_score_adj. */
  readonly setOomScoreAdj?: (value: number) => Promise<void>;
  /** /proc/sys of the namespace kube-proxy programs. Default: its own, or KPNG_NETNS's. */
  readonly sysctl?: SysctlAccess;
}

const PROCESS_IO: MainIO = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  readFile: (path) => readFileSync(path, 'utf8'),
  writeFile: (path, text) => writeFileSync(path, text),
  cpuCores: availableParallelism(),
};

export async function main(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<MainIO> = {},
): Promise<number> {
  const io: MainIO = { ...PROCESS_IO, ...overrides };
  const fail = (message: string) => (io.stderr(`Error: ${message}\n`), 1);

  let flags: ParsedFlags;
  try {
    flags = parseFlags(argv);
  } catch (e) {
    if (!(e instanceof FlagError)) throw e;
    return fail(`${e.message}\nRun 'kube-proxy --help' for usage.`);
  }
  if (flags.get('help') === true) return (io.stdout(usage()), 0);
  const version = flags.get<boolean | string>('version');
  if (version === true || version === 'raw') return (io.stdout(versionText(version === 'raw', AVAILABLE_MODES)), 0);
  // `--version=vX.Y.Z` (verflag): report that version and run.
  const reportedVersion = typeof version === 'string' ? version : `v${VERSION}`;

  let completed: Completed;
  try {
    completed = completeConfiguration(flags, { defaultMode: DEFAULT_MODE, readFile: io.readFile });
  } catch (e) {
    if (!(e instanceof CompleteError)) throw e;
    return fail(`failed complete: ${e.message}`);
  }
  const { config } = completed;
  configureLogging({
    verbosity: config.logging.verbosity,
    vmodule: config.logging.vmodule,
    format: config.logging.format === 'json' ? 'json' : 'text',
    write: (line) => io.stderr(`${line}\n`),
  });
  const log = createLogger({ component: 'kube-proxy' });
  for (const warning of [
    ...completed.warnings,
    ...featureGateWarnings(config.featureGates),
    ...unsupportedSettingWarnings(config),
  ]) {
    log.warn(warning);
  }

  const running = !completed.cleanup && completed.writeConfigTo === undefined;
  const errors = validateConfiguration(config, { availableModes: running ? AVAILABLE_MODES : PROXY_MODES });
  if (errors.length > 0)
    return fail(`failed validate: ${aggregate(errors.map((e) => withFlag(e, completed.fieldFlags)))}`);

  if (completed.writeConfigTo !== undefined) {
    io.writeFile(completed.writeConfigTo, configurationYaml(config));
    log.info('wrote configuration', { file: completed.writeConfigTo });
    return 0;
  }
  const netns = env['KPNG_NETNS'] || undefined;
  if (completed.cleanup) return cleanup(config, netns, log, fail);
  // Upstream's privileged set-up, which --init-only does alone (e.g. in an init container).
  const sysctl = io.sysctl ?? sysctlAccess(netns);
  await applyConntrack(config.conntrack, io.cpuCores, sysctl, log);
  if (completed.initOnly) {
    log.info('--init-only: initialisation done; exiting');
    return 0;
  }
  // Read back as upstream's iptables proxier does: the kernel decides the INVALID drop rule.
  const tcpBeLiberal = config.mode === 'iptables' && (await kernelTcpBeLiberal(sysctl, log));
  // Upstream's OOMAdjuster: keep the proxy alive under memory pressure (-999 by default).
  await (io.setOomScoreAdj ?? writeOomScoreAdj)(config.oomScoreAdj).catch((e: unknown) =>
    log.warn('cannot set oom_score_adj; leaving it as it is', { value: config.oomScoreAdj, err: (e as Error).message }),
  );
  const stop = terminationSignal(io.signal);
  try {
    return await serve(completed, {
      env,
      log,
      signal: stop.signal,
      version: reportedVersion,
      tcpBeLiberal,
      ...(io.onStarted ? { onStarted: io.onStarted } : {}),
    });
  } catch (e) {
    if (e instanceof BindError || e instanceof ConfigChangedError) return fail(e.message);
    return fail(`running kube-proxy: ${(e as Error).message}`);
  } finally {
    stop.dispose();
  }
}

function writeOomScoreAdj(value: number): Promise<void> {
  return writeFile('/proc/self/oom_score_adj', String(value));
}

/** A validation error on a field a flag set names that flag. */
function withFlag(error: FieldError, fieldFlags: ReadonlyMap<string, string>): string {
  for (const [field, flag] of fieldFlags)
    if (concerns(error.field, field)) return `${error.toString()} (set by ${flag})`;
  return error.toString();
}

async function cleanup(
  config: Completed['config'],
  netns: string | undefined,
  log: Logger,
  fail: (m: string) => number,
): Promise<number> {
  // As upstream's `--cleanup` (platformCleanup with cleanupAndExit): every mode's objects, each
  // removal tried even after another failed, and exit 1 if any failed.
  const ctx = netns !== undefined ? { netns } : {};
  const { removed, failed } = await removeLeftovers(
    plan({ mode: 'cleanup', nftTable: '', nftTables: nftTablesOf(config) }),
    config,
    ctx,
    log,
  );
  try {
    removed.push(...(await MODES.get('kernelspace')!.cleanup(config, ctx)));
  } catch (e) {
    failed.push(`HNS: ${(e as Error).message}`);
  }
  log.info('cleaned up', { removed, ...(netns !== undefined ? { netns } : {}) });
  return failed.length === 0 ? 0 : fail(`cleanup failed: ${failed.join('; ')}`);
}

/**
 * Upstream's conntrack set-up at start (cmd/kube-proxy/app/conntrack.go): nf_conntrack_max from
 * maxPerCore x cores (at least min) and the timeouts, written in the namespace kube-proxy programs.
 * The table's hashsize (a module parameter, global to the host) is left alone.
 */
async function applyConntrack(
  ct: Completed['config']['conntrack'],
  cores: number,
  access: SysctlAccess,
  log: Logger,
): Promise<void> {
  const settings = conntrackSysctls(ct, cores);
  if (settings.length > 0) await applySysctls(settings, access, log);
}

// Run when executed as a program (not when imported by tests), under core's process fault policy.
await runAsMain(import.meta.url, () => main(process.argv.slice(2)));
