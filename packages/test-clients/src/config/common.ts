import { isIP } from 'node:net';
import type { IPFamily } from '../kube/objects.js';
import type { ProbeCadence } from '../probe/probe-loop.js';
import { FlagError, type FlagSet, type ParsedFlags } from './flags.js';

/** A flag value that parsed but is not acceptable. The message names the flag and the rule. */
export class ConfigError extends FlagError {}

/** Upstream's common flags (perf-tests `pkg/utils`): names, defaults and validation unchanged. */
export interface TargetSettings {
  readonly hostNamespace: string;
  readonly targetLabelSelector: string;
  readonly targetNamespace: string;
  readonly targetPort: number;
  readonly maxTargets: number;
}

/**
 * `upstream` (the default of the two drop-in clients, which clusterloader2 starts with upstream's
 * flags only): perf-tests' measurement semantics, so results compare with published baselines.
 * `precise`: kpng's (see the README's table of differences).
 */
export type Mode = 'upstream' | 'precise';
export const MODES: readonly Mode[] = ['upstream', 'precise'];

/** Per mode: how attempts are spaced, and the defaults of the probe flags. */
const MODE_DEFAULTS: Readonly<
  Record<Mode, { readonly cadence: ProbeCadence; readonly intervalMs: number; readonly targetTimeoutMs?: number }>
> = {
  // Upstream runs curl after curl: one attempt at a time. The interval is a floor between starts,
  // only so that a rejecting target is not probed in a tight spin (curl's fork/exec is a floor too).
  upstream: { cadence: 'sequential', intervalMs: 10, targetTimeoutMs: 0 },
  precise: { cadence: 'interval', intervalMs: 100 },
};

/** Attempts per second one client may start at most (all targets probing at once), by default. */
export const DEFAULT_MAX_PROBE_RATE = 1_000;

/** How targets are probed (kpng additions). */
export interface ProbeSettings {
  readonly mode: Mode;
  /** `interval`: a new attempt every interval, overlapping; `sequential`: one after another, starts at least an interval apart. */
  readonly cadence: ProbeCadence;
  /** See `cadence`. */
  readonly intervalMs: number;
  /** Bound on one attempt (connect, plus the reply when one is needed). */
  readonly attemptTimeoutMs: number;
  /** A target not reached within this long counts as unreached; 0 means no deadline (upstream). */
  readonly targetTimeoutMs: number;
  /** Which of a pod's (or Service's) addresses to probe; undefined: the primary one. */
  readonly ipFamily: IPFamily | undefined;
}

/** Where the client serves metrics and how it reaches the API server. */
export interface ServeSettings {
  readonly metricsPort: number;
  /** Listen address; '' listens on every address (upstream's `:<port>`). */
  readonly metricsBindAddress: string;
  /** A kubeconfig file; '' uses $KUBECONFIG, ~/.kube/config, then the in-cluster service account. */
  readonly kubeconfig: string;
}

export function defineTargetFlags(fs: FlagSet): FlagSet {
  return fs
    .define({
      name: 'HostNamespace',
      alias: 'host-namespace',
      kind: 'string',
      default: '',
      usage: 'The namespace of the test client pods (required).',
    })
    .define({
      name: 'TargetLabelSelector',
      alias: 'target-label-selector',
      kind: 'string',
      default: '',
      usage: 'The label selector of the target pods to send requests to (required).',
    })
    .define({
      name: 'TargetNamespace',
      alias: 'target-namespace',
      kind: 'string',
      default: '',
      usage: 'The namespace of the target pods to send requests to (required).',
    })
    .define({
      name: 'TargetPort',
      alias: 'target-port',
      kind: 'int',
      default: 0,
      usage: 'The port number of the target pods to send requests to (required, 1-65535).',
    })
    .define({
      name: 'MaxTargets',
      alias: 'max-targets',
      kind: 'int',
      default: 100,
      usage: 'The maximum number of target pods to send requests to.',
    });
}

export function defineServeFlags(fs: FlagSet): FlagSet {
  return fs
    .define({
      name: 'MetricsPort',
      alias: 'metrics-port',
      kind: 'int',
      default: 9154,
      usage: 'The port where /metrics and /healthz are served.',
    })
    .define({
      name: 'MetricsBindAddress',
      alias: 'metrics-bind-address',
      kind: 'string',
      default: '',
      usage: 'The address the metrics server listens on; empty listens on all addresses.',
    })
    .define({
      name: 'Kubeconfig',
      alias: 'kubeconfig',
      kind: 'string',
      default: '',
      usage: 'Path to a kubeconfig; empty uses $KUBECONFIG, then ~/.kube/config, then the in-cluster service account.',
    });
}

/** `-Mode` and `-MaxProbeRate`: the two drop-in clients only (service-programming is always precise). */
export function defineModeFlags(fs: FlagSet): FlagSet {
  return fs
    .define({
      name: 'Mode',
      alias: 'mode',
      kind: 'string',
      default: 'upstream',
      usage:
        "'upstream': perf-tests' semantics (curl after curl, an HTTP reply, creationTimestamp starts, no deadline, negatives kept, pre-existing pods measured), comparable with published baselines; 'precise': kpng's (probes on a fixed interval, TCP connect, millisecond watch starts, per-target deadline). Precise samples carry mode=\"precise\" and start labels.",
    })
    .define({
      name: 'MaxProbeRate',
      alias: 'max-probe-rate',
      kind: 'int',
      default: DEFAULT_MAX_PROBE_RATE,
      usage:
        'Cap on connection attempts per second by this client, all targets probing at once: -ProbeInterval is raised to MaxTargets / MaxProbeRate when shorter (0: no cap).',
    });
}

export function defineProbeFlags(fs: FlagSet, targetTimeoutDefaultMs: number): FlagSet {
  return fs
    .define({
      name: 'ProbeInterval',
      alias: 'probe-interval',
      kind: 'duration',
      default: MODE_DEFAULTS.precise.intervalMs,
      usage:
        'Precise mode: time between the starts of two attempts to one target (default 100ms). Upstream mode: the least time between two starts (default 10ms).',
    })
    .define({
      name: 'ProbeTimeout',
      alias: 'probe-timeout',
      kind: 'duration',
      default: 1_000,
      usage: "Bound on one attempt (upstream: curl's --connect-timeout 1).",
    })
    .define({
      name: 'TargetTimeout',
      alias: 'target-timeout',
      kind: 'duration',
      default: targetTimeoutDefaultMs,
      usage:
        'A target not reached within this long counts as unreached (0: probe forever; the default in upstream mode).',
    })
    .define({
      name: 'IPFamily',
      alias: 'ip-family',
      kind: 'string',
      default: '',
      usage: 'Probe the IPv4 or IPv6 address of each target; empty: the primary address.',
    });
}

export function targetSettings(flags: ParsedFlags): TargetSettings {
  const settings = {
    hostNamespace: flags.string('HostNamespace'),
    targetLabelSelector: flags.string('TargetLabelSelector'),
    targetNamespace: flags.string('TargetNamespace'),
    targetPort: flags.int('TargetPort'),
    maxTargets: flags.int('MaxTargets'),
  };
  required('HostNamespace', settings.hostNamespace);
  required('TargetLabelSelector', settings.targetLabelSelector);
  required('TargetNamespace', settings.targetNamespace);
  port('TargetPort', settings.targetPort);
  atLeast('MaxTargets', settings.maxTargets, 1);
  return settings;
}

export function serveSettings(flags: ParsedFlags): ServeSettings {
  const settings = {
    metricsPort: flags.int('MetricsPort'),
    metricsBindAddress: flags.string('MetricsBindAddress'),
    kubeconfig: flags.string('Kubeconfig'),
  };
  port('MetricsPort', settings.metricsPort);
  if (settings.metricsBindAddress !== '' && isIP(settings.metricsBindAddress) === 0) {
    throw new ConfigError(
      `-MetricsBindAddress must be an IP address (got ${JSON.stringify(settings.metricsBindAddress)})`,
    );
  }
  return settings;
}

/**
 * The probe settings. Flags the user did not set take their mode's default; with `maxTargets` (the
 * drop-in clients) the interval is raised so that all targets probing at once stay under
 * -MaxProbeRate attempts per second.
 */
export function probeSettings(flags: ParsedFlags, maxTargets?: number): ProbeSettings {
  const mode = flags.has('Mode') ? modeOf(flags.string('Mode')) : 'precise';
  const defaults = MODE_DEFAULTS[mode];
  let intervalMs = flags.isSet('ProbeInterval') ? flags.duration('ProbeInterval') : defaults.intervalMs;
  if (intervalMs < 1) throw new ConfigError(`-ProbeInterval must be at least 1ms (got ${intervalMs}ms)`);
  if (maxTargets !== undefined && flags.has('MaxProbeRate')) {
    const rate = flags.int('MaxProbeRate');
    if (rate < 0) throw new ConfigError(`-MaxProbeRate must be at least 0 (got ${rate})`);
    if (rate > 0) intervalMs = Math.max(intervalMs, Math.ceil((maxTargets * 1_000) / rate));
  }
  const settings = {
    mode,
    cadence: defaults.cadence,
    intervalMs,
    attemptTimeoutMs: flags.duration('ProbeTimeout'),
    targetTimeoutMs: flags.isSet('TargetTimeout')
      ? flags.duration('TargetTimeout')
      : (defaults.targetTimeoutMs ?? flags.duration('TargetTimeout')),
    ipFamily: ipFamily('IPFamily', flags.string('IPFamily')),
  };
  if (settings.attemptTimeoutMs < 1)
    throw new ConfigError(`-ProbeTimeout must be at least 1ms (got ${settings.attemptTimeoutMs}ms)`);
  return settings;
}

export function modeOf(value: string): Mode {
  const v = value.trim().toLowerCase();
  if (v === 'upstream' || v === 'precise') return v;
  throw new ConfigError(`-Mode must be upstream or precise (got ${JSON.stringify(value)})`);
}

export function required(flag: string, value: string): void {
  if (value.trim() === '') throw new ConfigError(`-${flag} is required`);
}

export function port(flag: string, value: number): void {
  if (!Number.isInteger(value) || value < 1 || value > 65535)
    throw new ConfigError(`-${flag} must be between 1 and 65535 (got ${value})`);
}

export function atLeast(flag: string, value: number, min: number): void {
  if (value < min) throw new ConfigError(`-${flag} must be at least ${min} (got ${value})`);
}

export function ipFamily(flag: string, value: string): IPFamily | undefined {
  const v = value.trim().toLowerCase();
  if (v === '') return undefined;
  if (v === 'ipv4' || v === '4') return 'IPv4';
  if (v === 'ipv6' || v === '6') return 'IPv6';
  throw new ConfigError(`-${flag} must be IPv4, IPv6 or empty (got ${JSON.stringify(value)})`);
}
