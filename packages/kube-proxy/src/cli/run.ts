/**
 * `kube-proxy` once its flags are read and it is not `--help` or `--version` (main.ts): completes and
 * validates the configuration, then writes it (`--write-config-to`), cleans up (`--cleanup`), or
 * does upstream's privileged set-up and runs the proxy.
 */
import { writeFile } from 'node:fs/promises';
import { configureLogging, createLogger, type Logger } from '@kpng/core';
import { terminationSignal } from '@kpng/core/runtime';
import { completeConfiguration, CompleteError, type Completed } from '../config/complete.js';
import { configurationYaml } from '../config/encode.js';
import { aggregate, type FieldError } from '../config/field-error.js';
import { KPNG_PROXY_MODES, PROXY_MODES } from '../config/types.js';
import { concerns } from '../config/changed-fields.js';
import { validateConfiguration } from '../config/validate.js';
import type { ParsedFlags } from '../flags/parse.js';
import { BindError } from '../run/bind-check.js';
import { ConfigChangedError } from '../run/config-watch.js';
import { privilegedSetup } from '../run/privileged-setup.js';
import { sysctlAccess } from '../run/sysctl.js';
import { kernelTcpBeLiberal } from '../run/tcp-be-liberal.js';
import { AVAILABLE_MODES, DEFAULT_MODE, loadMode } from '../run/modes.js';
import { featureGateWarnings, unsupportedSettingWarnings } from '../run/notices.js';
import { serve } from '../run/serve.js';
import { plan } from '../run/leftovers.js';
import { nftTablesOf } from '../run/nft-options.js';
import { removeLeftovers } from '../run/platform-cleanup.js';
import type { MainIO } from './main.js';

export async function run(
  flags: ParsedFlags,
  reportedVersion: string,
  env: NodeJS.ProcessEnv,
  io: MainIO,
): Promise<number> {
  const fail = (message: string) => (io.stderr(`Error: ${message}\n`), 1);
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
  const errors = validateConfiguration(config, {
    availableModes: running ? AVAILABLE_MODES : [...PROXY_MODES, ...KPNG_PROXY_MODES],
  });
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
  const setupFailures = await privilegedSetup(config, {
    cpuCores: io.cpuCores,
    access: sysctl,
    log,
    ctx: netns !== undefined ? { netns } : {},
  });
  if (setupFailures.length > 0) return fail(`failed to set up the node: ${setupFailures.join('; ')}`);
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
  // HNS exists on Windows only: elsewhere its backend package is not even loaded.
  if (process.platform === 'win32') {
    try {
      removed.push(...(await (await loadMode('kernelspace')).cleanup(config, ctx)));
    } catch (e) {
      failed.push(`HNS: ${(e as Error).message}`);
    }
  }
  // kpng's enforcer table only when this proxy enforces policy: without --with-netpol it may be a
  // separate kpng-netpol agent's, which this proxy's cleanup must not disarm.
  if (config.enforceNetworkPolicy && process.platform !== 'win32') {
    try {
      const { NetpolBackend } = await import('@kpng/netpol');
      await new NetpolBackend(ctx).cleanup();
      removed.push('inet kpng-netpol');
    } catch (e) {
      failed.push(`inet kpng-netpol: ${(e as Error).message.split('\n')[0] ?? ''}`);
    }
  }
  log.info('cleaned up', { removed, ...(netns !== undefined ? { netns } : {}) });
  return failed.length === 0 ? 0 : fail(`cleanup failed: ${failed.join('; ')}`);
}
