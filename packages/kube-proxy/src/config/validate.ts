/**
 * Validation of the effective configuration, after `pkg/proxy/apis/config/validation`: same
 * checks, same details, reported on v1alpha1 field paths (`KubeProxyConfiguration.nftables.syncPeriod`).
 * kpng additions: the mode must be one this build has a backend for, `ipvs.scheduler` is checked in
 * every mode, `nftables.tableName` must be a usable nftables name, and `enforceNetworkPolicy`
 * (kpng's extension) needs a Linux mode.
 */
import { parseCIDR, parseIP } from '@kpng/core';
import { splitHostPort } from './defaults.js';
import { fieldPath as path, type FieldError, invalid, notSupported } from './field-error.js';
import {
  IPVS_SCHEDULERS,
  LOCAL_MODES,
  LOGGING_FORMATS,
  NODE_PORT_ADDRESSES_PRIMARY,
  PROXY_MODES,
  type KubeProxyConfiguration,
} from './types.js';

export interface ValidationContext {
  /** Modes this build can run (`nftables`). */
  readonly availableModes: readonly string[];
}

export function validateConfiguration(c: KubeProxyConfiguration, ctx: ValidationContext): FieldError[] {
  return [
    ...masqueradeBit(c.iptables.masqueradeBit, path('iptables', 'masqueradeBit')),
    ...modeSection(c),
    ...validateMode(c.mode, ctx),
    ...conntrack(c),
    ...range(c.oomScoreAdj, -1000, 1000, path('oomScoreAdj')),
    ...nonNegative(c.clientConnection.burst, path('clientConnection', 'burst')),
    ...(c.configSyncPeriod <= 0
      ? [invalid(path('configSyncPeriod'), { duration: c.configSyncPeriod }, 'must be greater than 0')]
      : []),
    ...(parseIP(c.bindAddress) === undefined
      ? [invalid(path('bindAddress'), c.bindAddress, 'not a valid textual representation of an IP address')]
      : []),
    ...(c.healthzBindAddress !== '' ? hostPort(c.healthzBindAddress, path('healthzBindAddress')) : []),
    ...(c.metricsBindAddress !== '' ? hostPort(c.metricsBindAddress, path('metricsBindAddress')) : []),
    ...portRange(c.portRange),
    ...nodePortAddresses(c.nodePortAddresses),
    ...showHiddenMetrics(c.showHiddenMetricsForVersion),
    ...detectLocal(c),
    ...logging(c),
    ...ipvsScheduler(c.ipvs.scheduler),
    ...(c.mode === 'ipvs' ? ipvs(c) : []),
    ...tableName(c.nftables.tableName),
    ...(c.enforceNetworkPolicy && c.mode === 'kernelspace'
      ? [
          invalid(
            path('enforceNetworkPolicy'),
            true,
            'NetworkPolicy enforcement (@kpng/netpol) programs nftables: not available in kernelspace mode',
          ),
        ]
      : []),
  ];
}

/** The active mode's sync periods and mark bit (iptables' section for iptables and blank). */
function modeSection(c: KubeProxyConfiguration): FieldError[] {
  const name = c.mode === 'ipvs' || c.mode === 'nftables' ? c.mode : 'iptables';
  const section = c[name];
  const errors: FieldError[] = [];
  if (name === 'nftables') errors.push(...masqueradeBit(c.nftables.masqueradeBit, path('nftables', 'masqueradeBit')));
  if (section.syncPeriod <= 0) {
    errors.push(invalid(path(name, 'syncPeriod'), { duration: section.syncPeriod }, 'must be greater than 0'));
  }
  if (section.minSyncPeriod < 0) {
    errors.push(
      invalid(path(name, 'minSyncPeriod'), { duration: section.minSyncPeriod }, 'must be greater than or equal to 0'),
    );
  }
  if (section.minSyncPeriod > section.syncPeriod) {
    const detail = `must be greater than or equal to ${path(name, 'minSyncPeriod')}`;
    errors.push(invalid(path(name, 'syncPeriod'), { duration: section.minSyncPeriod }, detail));
  }
  return errors;
}

function validateMode(mode: string, ctx: ValidationContext): FieldError[] {
  if (mode === '' || ctx.availableModes.includes(mode)) return [];
  if (!(PROXY_MODES as readonly string[]).includes(mode)) return [notSupported(path('mode'), mode, PROXY_MODES)];
  const available = ctx.availableModes.map((m) => JSON.stringify(m)).join(', ');
  return [
    invalid(
      path('mode'),
      mode,
      `proxy mode ${JSON.stringify(mode)} is not available in this build of kube-proxy (kpng); available modes: ${available}`,
    ),
  ];
}

function conntrack(c: KubeProxyConfiguration): FieldError[] {
  const ct = c.conntrack;
  return [
    ...nonNegative(ct.maxPerCore, path('conntrack', 'maxPerCore')),
    ...nonNegative(ct.min, path('conntrack', 'min')),
    ...nonNegativeDuration(ct.tcpEstablishedTimeout, path('conntrack', 'tcpEstablishedTimeout')),
    ...nonNegativeDuration(ct.tcpCloseWaitTimeout, path('conntrack', 'tcpCloseWaitTimeout')),
    ...nonNegativeDuration(ct.udpTimeout, path('conntrack', 'udpTimeout')),
    ...nonNegativeDuration(ct.udpStreamTimeout, path('conntrack', 'udpStreamTimeout')),
  ];
}

function ipvs(c: KubeProxyConfiguration): FieldError[] {
  return [
    ...nonNegativeDuration(c.ipvs.tcpTimeout, path('ipvs', 'tcpTimeout')),
    ...nonNegativeDuration(c.ipvs.tcpFinTimeout, path('ipvs', 'tcpFinTimeout')),
    ...nonNegativeDuration(c.ipvs.udpTimeout, path('ipvs', 'udpTimeout')),
    ...c.ipvs.excludeCIDRs.flatMap((cidr, i) =>
      parseCIDR(cidr) === undefined ? [invalid(path('ipvs', 'excludeCIDRs', i), cidr, 'must be a valid CIDR')] : [],
    ),
  ];
}

function ipvsScheduler(scheduler: string): FieldError[] {
  if (scheduler === '' || (IPVS_SCHEDULERS as readonly string[]).includes(scheduler)) return [];
  return [notSupported(path('ipvs', 'scheduler'), scheduler, [...IPVS_SCHEDULERS, ''])];
}

function masqueradeBit(bit: number, field: string): FieldError[] {
  return bit < 0 || bit > 31 ? [invalid(field, bit, 'must be within the range [0, 31]')] : [];
}

function range(value: number, min: number, max: number, field: string): FieldError[] {
  return value < min || value > max ? [invalid(field, value, `must be within the range [${min}, ${max}]`)] : [];
}

function nonNegative(value: number, field: string): FieldError[] {
  return value < 0 ? [invalid(field, value, 'must be greater than or equal to 0')] : [];
}

function nonNegativeDuration(ms: number, field: string): FieldError[] {
  return ms < 0 ? [invalid(field, { duration: ms }, 'must be greater than or equal to 0')] : [];
}

function hostPort(input: string, field: string): FieldError[] {
  const split = splitHostPort(input);
  if (split === undefined) return [invalid(field, input, 'must be IP:port')];
  const errors: FieldError[] = [];
  if (parseIP(split.host) === undefined) errors.push(invalid(field, split.host, 'must be a valid IP'));
  const port = /^\d+$/.test(split.port) ? Number(split.port) : NaN;
  if (!(port >= 1 && port <= 65535)) errors.push(invalid(field, split.port, 'must be a valid port'));
  return errors;
}

/** `utilnet.ParsePortRange`: empty, `N`, `A-B` or `A+N`. */
function portRange(text: string): FieldError[] {
  const value = text.trim();
  if (value === '') return [];
  const m = /^(\d+)(?:([-+])(\d+))?$/.exec(value);
  const ok = m !== null && portRangeOk(Number(m[1]), m[2], m[3] === undefined ? undefined : Number(m[3]));
  return ok ? [] : [invalid(path('portRange'), text, 'must be a valid port range (e.g. 300-2000)')];
}

function portRangeOk(base: number, op: string | undefined, other: number | undefined): boolean {
  if (base > 65535) return false;
  if (op === '-') return other !== undefined && other >= base && other <= 65535;
  if (op === '+') return other !== undefined && base + other <= 65536;
  return true;
}

function nodePortAddresses(addresses: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  for (const [i, address] of addresses.entries()) {
    if (address === NODE_PORT_ADDRESSES_PRIMARY) {
      if (i !== 0 || addresses.length !== 1)
        errors.push(invalid(path('nodePortAddresses', i), address, "can't use both 'primary' and CIDRs"));
      break;
    }
    if (parseCIDR(address) === undefined)
      errors.push(invalid(path('nodePortAddresses', i), address, 'must be a valid CIDR'));
  }
  return errors;
}

function showHiddenMetrics(version: string): FieldError[] {
  if (version === '' || /^\d+\.\d+$/.test(version)) return [];
  return [invalid(path('showHiddenMetricsForVersion'), version, 'must be in the format <major>.<minor>, e.g. "1.16"')];
}

function detectLocal(c: KubeProxyConfiguration): FieldError[] {
  const mode = c.detectLocalMode;
  if (mode !== '' && !(LOCAL_MODES as readonly string[]).includes(mode)) {
    return [notSupported(path('detectLocalMode'), mode, [...LOCAL_MODES, ''])];
  }
  if (mode === 'BridgeInterface' && c.detectLocal.bridgeInterface === '') {
    return [invalid(path('detectLocal', 'bridgeInterface'), '', 'must not be empty')];
  }
  if (mode === 'InterfaceNamePrefix' && c.detectLocal.interfaceNamePrefix === '') {
    return [invalid(path('detectLocal', 'interfaceNamePrefix'), '', 'must not be empty')];
  }
  if (mode === 'ClusterCIDR' && c.clusterCIDR !== '') return clusterCIDRs(c.clusterCIDR);
  return [];
}

const DUAL_STACK_HINT =
  'must be a either a single CIDR or dual-stack pair of CIDRs (e.g. [10.100.0.0/16, fde4:8dba:82e1::/48]';

function clusterCIDRs(text: string): FieldError[] {
  const cidrs = text.split(',');
  if (cidrs.length > 2) return [invalid(path('clusterCIDR'), text, DUAL_STACK_HINT)];
  const parsed = cidrs.map((cidr) => parseCIDR(cidr));
  const bad = cidrs.filter((_, i) => parsed[i] === undefined);
  if (bad.length > 0) {
    return bad.map((cidr) =>
      invalid(path('clusterCIDR'), cidr, 'must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48)'),
    );
  }
  if (parsed.length === 2 && parsed[0]!.family === parsed[1]!.family)
    return [invalid(path('clusterCIDR'), text, DUAL_STACK_HINT)];
  return [];
}

function logging(c: KubeProxyConfiguration): FieldError[] {
  const format = c.logging.format;
  return (LOGGING_FORMATS as readonly string[]).includes(format)
    ? []
    : [notSupported(path('logging', 'format'), format, LOGGING_FORMATS)];
}

const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,31}$/;

function tableName(name: string): FieldError[] {
  if (name === '' || TABLE_NAME.test(name)) return [];
  return [
    invalid(
      path('nftables', 'tableName'),
      name,
      'must be a valid nftables table name (letters, digits, "_" and "-", at most 32 characters, not starting with a digit or "-")',
    ),
  ];
}
