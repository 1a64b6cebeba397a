/**
 * From the command line (and the file it names) to one effective configuration, as kube-proxy's
 * `Options.Complete` does it:
 * - with `--config`, the file is the configuration; of the other flags only --master,
 *   --hostname-override, the logging flags (-v, --vmodule, …) and the actions (--cleanup,
 *   --write-config-to, --init-only) count, the rest are ignored (kpng warns about them);
 * - without it, defaults plus the flags; `--iptables-*sync-period` and `--masquerade-all` land in
 *   the section of the final mode, `--ipvs-*sync-period` only in ipvs mode;
 * - then platform defaults: a blank mode is the best mode this build has (upstream: iptables),
 *   a blank detectLocalMode is ClusterCIDR, nftables mode's NodePorts default to `primary`.
 */
import { changedFields } from './changed-fields.js';
import { unknownFeatureGateError } from './feature-gates.js';
import { ConfigDecodeError, decodeConfiguration } from './decode.js';
import { appendPortIfNeeded, HEALTHZ_PORT, METRICS_PORT, withDefaults } from './defaults.js';
import type { KubeProxyConfiguration } from './types.js';
import { NODE_PORT_ADDRESSES_PRIMARY } from './types.js';
import type { ParsedFlags } from '../flags/parse.js';
import { flagNamed } from '../flags/table.js';

export class CompleteError extends Error {
  override readonly name = 'CompleteError';
}

export interface CompleteOptions {
  /** The mode a blank `mode` means in this build. */
  readonly defaultMode: string;
  readonly readFile: (path: string) => string;
}

export interface Completed {
  readonly config: KubeProxyConfiguration;
  readonly configFile?: string;
  readonly writeConfigTo?: string;
  readonly cleanup: boolean;
  readonly initOnly: boolean;
  /** `--master`: overrides the kubeconfig's server. */
  readonly master?: string;
  readonly warnings: readonly string[];
  /** Field path -> the flag that set it (flags-only path), to name flags in validation errors. */
  readonly fieldFlags: ReadonlyMap<string, string>;
}

export function completeConfiguration(flags: ParsedFlags, options: CompleteOptions): Completed {
  const warnings: string[] = [];
  const fieldFlags = new Map<string, string>();
  const configFile = flags.get<string>('config') || undefined;
  let config: KubeProxyConfiguration;

  const applyFlag = (name: string, mutate: () => void) => {
    for (const field of changedFields(config, mutate)) fieldFlags.set(field, `--${name}`);
  };

  if (configFile !== undefined) {
    config = loadFile(configFile, options, warnings);
    const ignored = flags.names().filter((name) => !flagNamed(name)?.withConfig);
    if (ignored.length > 0) {
      warnings.push(
        `these flags are ignored because --config is given (as upstream kube-proxy does): ${ignored.map((n) => `--${n}`).join(', ')}`,
      );
    }
    for (const name of flags.names()) {
      const spec = flagNamed(name);
      if (spec?.withConfig && spec.apply) spec.apply(config, flags.get(name));
    }
  } else {
    config = withDefaults();
    for (const name of flags.names()) {
      const spec = flagNamed(name);
      if (spec?.apply) applyFlag(name, () => spec.apply!(config, flags.get(name)));
    }
    if (!flags.has('write-config-to')) {
      applyFlag(
        'healthz-port',
        () =>
          (config.healthzBindAddress = fromDeprecatedPort(
            config.healthzBindAddress,
            flags.get('healthz-port') ?? HEALTHZ_PORT,
          )),
      );
      applyFlag(
        'metrics-port',
        () =>
          (config.metricsBindAddress = fromDeprecatedPort(
            config.metricsBindAddress,
            flags.get('metrics-port') ?? METRICS_PORT,
          )),
      );
    }
  }

  resolveBlankMode(config, options.defaultMode, warnings);
  if (configFile === undefined) applyModeDependentFlags(config, flags, applyFlag, warnings);
  for (const name of flags.names()) {
    const deprecated = flagNamed(name)?.deprecated;
    if (deprecated) warnings.push(`flag --${name} has been deprecated, ${deprecated}`);
  }
  if (config.detectLocalMode === '') config.detectLocalMode = 'ClusterCIDR';
  if (config.mode === 'nftables' && config.nodePortAddresses.length === 0)
    config.nodePortAddresses = [NODE_PORT_ADDRESSES_PRIMARY];
  applyHostnameOverride(config, flags.get<string>('hostname-override'));

  // Upstream's Complete ends with `SetFromMap(config.FeatureGates)`: an unknown gate stops it.
  const gateError = unknownFeatureGateError(config.featureGates);
  if (gateError !== undefined) throw new CompleteError(gateError);

  const master = flags.get<string>('master');
  const writeConfigTo = flags.get<string>('write-config-to') || undefined;
  return {
    config,
    ...(configFile !== undefined ? { configFile } : {}),
    ...(writeConfigTo !== undefined ? { writeConfigTo } : {}),
    cleanup: flags.get<boolean>('cleanup') ?? false,
    initOnly: flags.get<boolean>('init-only') ?? false,
    ...(master ? { master } : {}),
    warnings,
    fieldFlags,
  };
}

function loadFile(path: string, options: CompleteOptions, warnings: string[]): KubeProxyConfiguration {
  let text: string;
  try {
    text = options.readFile(path);
  } catch (e) {
    throw new CompleteError(
      `open ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`,
    );
  }
  try {
    const decoded = decodeConfiguration(text);
    warnings.push(...decoded.warnings.map((w) => `${path}: ${w}`));
    return withDefaults(decoded.config);
  } catch (e) {
    if (e instanceof ConfigDecodeError) throw new CompleteError(`${path}: ${e.message}`);
    throw e;
  }
}

/** `addressFromDeprecatedFlags`: port 0 disables the server, another port fills a bare IP. */
function fromDeprecatedPort(address: string, port: number): string {
  return port === 0 ? '' : appendPortIfNeeded(address, port);
}

/**
 * Upstream converts a blank mode's sync periods and masqueradeAll from the iptables section, then
 * runs iptables. Here blank means the best mode this build has; those values carry over to it.
 */
function resolveBlankMode(config: KubeProxyConfiguration, mode: string, warnings: string[]): void {
  if (config.mode !== '') return;
  config.mode = mode;
  if (mode === 'nftables') {
    const { syncPeriod, minSyncPeriod, masqueradeAll } = config.iptables;
    Object.assign(config.nftables, { syncPeriod, minSyncPeriod, masqueradeAll });
  }
  if (mode === 'iptables') {
    warnings.push('mode is blank: using iptables, as upstream kube-proxy does on Linux');
    return;
  }
  warnings.push(
    `mode is blank: using ${mode}, the best mode this build has (upstream kube-proxy would use iptables); ` +
      `iptables.syncPeriod, iptables.minSyncPeriod and iptables.masqueradeAll apply to it, as they would upstream`,
  );
}

function applyModeDependentFlags(
  config: KubeProxyConfiguration,
  flags: ParsedFlags,
  applyFlag: (name: string, mutate: () => void) => void,
  warnings: string[],
): void {
  const ipvs = config.mode === 'ipvs';
  const section = config.mode === 'nftables' ? config.nftables : config.iptables;
  const periods = [
    ['iptables-sync-period', !ipvs, (v: number) => (section.syncPeriod = v)],
    ['iptables-min-sync-period', !ipvs, (v: number) => (section.minSyncPeriod = v)],
    ['ipvs-sync-period', ipvs, (v: number) => (config.ipvs.syncPeriod = v)],
    ['ipvs-min-sync-period', ipvs, (v: number) => (config.ipvs.minSyncPeriod = v)],
  ] as const;
  for (const [name, applies, set] of periods) {
    const value = flags.get<number>(name);
    if (value === undefined) continue;
    if (applies) applyFlag(name, () => set(value));
    else warnings.push(`flag --${name} has no effect in ${config.mode} mode`);
  }
  const clusterCIDR = flags.get<string>('cluster-cidr');
  if (clusterCIDR !== undefined) applyFlag('cluster-cidr', () => (config.clusterCIDR = clusterCIDR));
  const masqueradeAll = flags.get<boolean>('masquerade-all');
  if (masqueradeAll !== undefined) applyFlag('masquerade-all', () => (section.masqueradeAll = masqueradeAll));
  if (flags.has('iptables-masquerade-bit') && config.mode === 'nftables') {
    warnings.push(
      'flag --iptables-masquerade-bit has no effect in nftables mode (as upstream); set nftables.masqueradeBit in a --config file',
    );
  }
}

function applyHostnameOverride(config: KubeProxyConfiguration, override: string | undefined): void {
  if (override === undefined || override === '') return;
  const name = override.trim();
  if (name === '') throw new CompleteError('empty hostname-override is invalid');
  config.hostnameOverride = name.toLowerCase();
}
