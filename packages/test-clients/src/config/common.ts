import { isIP } from 'node:net';
import type { IPFamily } from '../kube/objects.js';
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

/** How targets are probed (kpng additions). */
export interface ProbeSettings {
  /** A new attempt starts every interval (attempts overlap when one takes longer). */
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
    .define({ name: 'HostNamespace', alias: 'host-namespace', kind: 'string', default: '', usage: 'The namespace of the test client pods (required).' })
    .define({ name: 'TargetLabelSelector', alias: 'target-label-selector', kind: 'string', default: '', usage: 'The label selector of the target pods to send requests to (required).' })
    .define({ name: 'TargetNamespace', alias: 'target-namespace', kind: 'string', default: '', usage: 'The namespace of the target pods to send requests to (required).' })
    .define({ name: 'TargetPort', alias: 'target-port', kind: 'int', default: 0, usage: 'The port number of the target pods to send requests to (required, 1-65535).' })
    .define({ name: 'MaxTargets', alias: 'max-targets', kind: 'int', default: 100, usage: 'The maximum number of target pods to send requests to.' });
}

export function defineServeFlags(fs: FlagSet): FlagSet {
  return fs
    .define({ name: 'MetricsPort', alias: 'metrics-port', kind: 'int', default: 9154, usage: 'The port where /metrics and /healthz are served.' })
    .define({ name: 'MetricsBindAddress', alias: 'metrics-bind-address', kind: 'string', default: '', usage: 'The address the metrics server listens on; empty listens on all addresses.' })
    .define({ name: 'Kubeconfig', alias: 'kubeconfig', kind: 'string', default: '', usage: 'Path to a kubeconfig; empty uses $KUBECONFIG, then ~/.kube/config, then the in-cluster service account.' });
}

export function defineProbeFlags(fs: FlagSet, targetTimeoutDefaultMs: number): FlagSet {
  return fs
    .define({ name: 'ProbeInterval', alias: 'probe-interval', kind: 'duration', default: 100, usage: 'Time between the starts of two connection attempts to one target.' })
    .define({ name: 'ProbeTimeout', alias: 'probe-timeout', kind: 'duration', default: 1_000, usage: 'Bound on one connection attempt.' })
    .define({ name: 'TargetTimeout', alias: 'target-timeout', kind: 'duration', default: targetTimeoutDefaultMs, usage: 'A target not reached within this long counts as unreached (0: probe forever, as upstream does).' })
    .define({ name: 'IPFamily', alias: 'ip-family', kind: 'string', default: '', usage: 'Probe the IPv4 or IPv6 address of each target; empty: the primary address.' });
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
    throw new ConfigError(`-MetricsBindAddress must be an IP address (got ${JSON.stringify(settings.metricsBindAddress)})`);
  }
  return settings;
}

export function probeSettings(flags: ParsedFlags): ProbeSettings {
  const settings = {
    intervalMs: flags.duration('ProbeInterval'),
    attemptTimeoutMs: flags.duration('ProbeTimeout'),
    targetTimeoutMs: flags.duration('TargetTimeout'),
    ipFamily: ipFamily('IPFamily', flags.string('IPFamily')),
  };
  if (settings.intervalMs < 1) throw new ConfigError(`-ProbeInterval must be at least 1ms (got ${settings.intervalMs}ms)`);
  if (settings.attemptTimeoutMs < 1) throw new ConfigError(`-ProbeTimeout must be at least 1ms (got ${settings.attemptTimeoutMs}ms)`);
  return settings;
}

export function required(flag: string, value: string): void {
  if (value.trim() === '') throw new ConfigError(`-${flag} is required`);
}

export function port(flag: string, value: number): void {
  if (!Number.isInteger(value) || value < 1 || value > 65535) throw new ConfigError(`-${flag} must be between 1 and 65535 (got ${value})`);
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
