import { describe, expect, it } from 'vitest';
import { withDefaults } from './defaults.js';
import { aggregate } from './field-error.js';
import type { KubeProxyConfiguration } from './types.js';
import { validateConfiguration } from './validate.js';

const CTX = { availableModes: ['nftables'] };

/** A valid nftables configuration, changed by each case. */
function config(change: (c: KubeProxyConfiguration) => void = () => {}): KubeProxyConfiguration {
  const c = withDefaults({ mode: 'nftables', detectLocalMode: 'ClusterCIDR', clusterCIDR: '198.18.0.0/16' });
  change(c);
  return c;
}

const messages = (c: KubeProxyConfiguration) => validateConfiguration(c, CTX).map(String);

describe('validateConfiguration', () => {
  it('accepts the defaults in nftables mode, and a blank mode', () => {
    expect(messages(config())).toEqual([]);
    expect(messages(withDefaults())).toEqual([]);
  });

  it.each<[string, (c: KubeProxyConfiguration) => void, string]>([
    [
      'an unknown mode',
      (c) => (c.mode = 'foo'),
      'KubeProxyConfiguration.mode: Unsupported value: "foo": supported values: "iptables", "ipvs", "nftables", "kernelspace"',
    ],
    [
      'a mode this build lacks',
      (c) => (c.mode = 'ipvs'),
      'KubeProxyConfiguration.mode: Invalid value: "ipvs": proxy mode "ipvs" is not available in this build of kube-proxy (kpng); available modes: "nftables"',
    ],
    [
      'a zero sync period',
      (c) => ((c.nftables.syncPeriod = 0), (c.nftables.minSyncPeriod = 0)),
      'KubeProxyConfiguration.nftables.syncPeriod: Invalid value: 0s: must be greater than 0',
    ],
    [
      'a negative min sync period',
      (c) => (c.nftables.minSyncPeriod = -1000),
      'KubeProxyConfiguration.nftables.minSyncPeriod: Invalid value: -1s: must be greater than or equal to 0',
    ],
    [
      'a min sync period above the sync period',
      (c) => (c.nftables.minSyncPeriod = 60_000),
      'KubeProxyConfiguration.nftables.syncPeriod: Invalid value: 1m0s: must be greater than or equal to KubeProxyConfiguration.nftables.minSyncPeriod',
    ],
    [
      'the iptables section in a blank mode',
      (c) => ((c.mode = ''), (c.iptables.syncPeriod = 0), (c.iptables.minSyncPeriod = 0)),
      'KubeProxyConfiguration.iptables.syncPeriod: Invalid value: 0s: must be greater than 0',
    ],
    [
      'an nftables masquerade bit out of range',
      (c) => (c.nftables.masqueradeBit = 32),
      'KubeProxyConfiguration.nftables.masqueradeBit: Invalid value: 32: must be within the range [0, 31]',
    ],
    [
      'an iptables masquerade bit out of range (any mode)',
      (c) => (c.iptables.masqueradeBit = -1),
      'KubeProxyConfiguration.iptables.masqueradeBit: Invalid value: -1: must be within the range [0, 31]',
    ],
    [
      'a bad cluster CIDR',
      (c) => (c.clusterCIDR = '10.0.0.0/33'),
      'KubeProxyConfiguration.clusterCIDR: Invalid value: "10.0.0.0/33": must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48)',
    ],
    [
      'two cluster CIDRs of one family',
      (c) => (c.clusterCIDR = '198.18.0.0/16,198.19.0.0/16'),
      'KubeProxyConfiguration.clusterCIDR: Invalid value: "198.18.0.0/16,198.19.0.0/16": must be a either a single CIDR or dual-stack pair of CIDRs (e.g. [10.100.0.0/16, fde4:8dba:82e1::/48]',
    ],
    [
      'three cluster CIDRs',
      (c) => (c.clusterCIDR = '198.18.0.0/16,2001:db8::/48,198.19.0.0/16'),
      'KubeProxyConfiguration.clusterCIDR: Invalid value: "198.18.0.0/16,2001:db8::/48,198.19.0.0/16": must be a either a single CIDR or dual-stack pair of CIDRs (e.g. [10.100.0.0/16, fde4:8dba:82e1::/48]',
    ],
    [
      'an unknown detectLocalMode',
      (c) => (c.detectLocalMode = 'PodCIDR'),
      'KubeProxyConfiguration.detectLocalMode: Unsupported value: "PodCIDR": supported values: "ClusterCIDR", "NodeCIDR", "BridgeInterface", "InterfaceNamePrefix", ""',
    ],
    [
      'BridgeInterface without a bridge',
      (c) => (c.detectLocalMode = 'BridgeInterface'),
      'KubeProxyConfiguration.detectLocal.bridgeInterface: Invalid value: "": must not be empty',
    ],
    [
      'InterfaceNamePrefix without a prefix',
      (c) => (c.detectLocalMode = 'InterfaceNamePrefix'),
      'KubeProxyConfiguration.detectLocal.interfaceNamePrefix: Invalid value: "": must not be empty',
    ],
    [
      'a bad node port CIDR',
      (c) => (c.nodePortAddresses = ['198.18.255.0/24', 'eth0']),
      'KubeProxyConfiguration.nodePortAddresses[1]: Invalid value: "eth0": must be a valid CIDR',
    ],
    [
      "'primary' with CIDRs",
      (c) => (c.nodePortAddresses = ['198.18.255.0/24', 'primary']),
      "KubeProxyConfiguration.nodePortAddresses[1]: Invalid value: \"primary\": can't use both 'primary' and CIDRs",
    ],
    [
      'a bind address with a port',
      (c) => (c.bindAddress = '198.18.255.1:80'),
      'KubeProxyConfiguration.bindAddress: Invalid value: "198.18.255.1:80": not a valid textual representation of an IP address',
    ],
    [
      'a healthz address without a port',
      (c) => (c.healthzBindAddress = '0.0.0.0'),
      'KubeProxyConfiguration.healthzBindAddress: Invalid value: "0.0.0.0": must be IP:port',
    ],
    [
      'a metrics address with a hostname',
      (c) => (c.metricsBindAddress = 'localhost:10249'),
      'KubeProxyConfiguration.metricsBindAddress: Invalid value: "localhost": must be a valid IP',
    ],
    [
      'a metrics port of 0',
      (c) => (c.metricsBindAddress = '127.0.0.1:0'),
      'KubeProxyConfiguration.metricsBindAddress: Invalid value: "0": must be a valid port',
    ],
    [
      'a zero config sync period',
      (c) => (c.configSyncPeriod = 0),
      'KubeProxyConfiguration.configSyncPeriod: Invalid value: 0s: must be greater than 0',
    ],
    [
      'a negative maxPerCore',
      (c) => (c.conntrack.maxPerCore = -1),
      'KubeProxyConfiguration.conntrack.maxPerCore: Invalid value: -1: must be greater than or equal to 0',
    ],
    [
      'a negative conntrack min',
      (c) => (c.conntrack.min = -1),
      'KubeProxyConfiguration.conntrack.min: Invalid value: -1: must be greater than or equal to 0',
    ],
    [
      'a negative TCP established timeout',
      (c) => (c.conntrack.tcpEstablishedTimeout = -1000),
      'KubeProxyConfiguration.conntrack.tcpEstablishedTimeout: Invalid value: -1s: must be greater than or equal to 0',
    ],
    [
      'a negative TCP close-wait timeout',
      (c) => (c.conntrack.tcpCloseWaitTimeout = -1000),
      'KubeProxyConfiguration.conntrack.tcpCloseWaitTimeout: Invalid value: -1s: must be greater than or equal to 0',
    ],
    [
      'a negative UDP timeout',
      (c) => (c.conntrack.udpTimeout = -1000),
      'KubeProxyConfiguration.conntrack.udpTimeout: Invalid value: -1s: must be greater than or equal to 0',
    ],
    [
      'a negative UDP stream timeout',
      (c) => (c.conntrack.udpStreamTimeout = -1000),
      'KubeProxyConfiguration.conntrack.udpStreamTimeout: Invalid value: -1s: must be greater than or equal to 0',
    ],
    [
      'an oomScoreAdj out of range',
      (c) => (c.oomScoreAdj = 1001),
      'KubeProxyConfiguration.oomScoreAdj: Invalid value: 1001: must be within the range [-1000, 1000]',
    ],
    [
      'a negative burst',
      (c) => (c.clientConnection.burst = -1),
      'KubeProxyConfiguration.clientConnection.burst: Invalid value: -1: must be greater than or equal to 0',
    ],
    [
      'a bad port range',
      (c) => (c.portRange = '2000-300'),
      'KubeProxyConfiguration.portRange: Invalid value: "2000-300": must be a valid port range (e.g. 300-2000)',
    ],
    [
      'a bad hidden-metrics version',
      (c) => (c.showHiddenMetricsForVersion = 'v1'),
      'KubeProxyConfiguration.showHiddenMetricsForVersion: Invalid value: "v1": must be in the format <major>.<minor>, e.g. "1.16"',
    ],
    [
      'an unknown logging format',
      (c) => (c.logging.format = 'xml'),
      'KubeProxyConfiguration.logging.format: Unsupported value: "xml": supported values: "json", "text"',
    ],
    [
      'an unknown ipvs scheduler (any mode)',
      (c) => (c.ipvs.scheduler = 'random'),
      'KubeProxyConfiguration.ipvs.scheduler: Unsupported value: "random": supported values: "rr", "wrr", "lc", "wlc", "lblc", "lblcr", "sh", "dh", "sed", "nq", ""',
    ],
    [
      'a table name nftables cannot use',
      (c) => (c.nftables.tableName = 'kube proxy'),
      'KubeProxyConfiguration.nftables.tableName: Invalid value: "kube proxy": must be a valid nftables table name (letters, digits, "_" and "-", at most 32 characters, not starting with a digit or "-")',
    ],
  ])('%s', (_name, change, message) => {
    expect(messages(config(change))).toEqual([message]);
  });

  it("refuses kpng's NetworkPolicy enforcement in kernelspace mode (it programs nftables), accepts it in a Linux mode", () => {
    const enforcing = (mode: string) => config((c) => ((c.mode = mode), (c.enforceNetworkPolicy = true)));
    const ctx = { availableModes: ['nftables', 'kernelspace'] };
    expect(validateConfiguration(enforcing('kernelspace'), ctx).map(String)).toEqual([
      'KubeProxyConfiguration.enforceNetworkPolicy: Invalid value: true: NetworkPolicy enforcement (@kpng/netpol) programs nftables: not available in kernelspace mode',
    ]);
    expect(validateConfiguration(enforcing('nftables'), ctx).map(String)).toEqual([]);
  });

  it('checks the ipvs section in ipvs mode, where this build can only clean up', () => {
    const c = config((c) => ((c.mode = 'ipvs'), (c.ipvs.tcpTimeout = -1000), (c.ipvs.excludeCIDRs = ['bad'])));
    expect(
      validateConfiguration(c, { availableModes: ['iptables', 'ipvs', 'nftables', 'kernelspace'] }).map(String),
    ).toEqual([
      'KubeProxyConfiguration.ipvs.tcpTimeout: Invalid value: -1s: must be greater than or equal to 0',
      'KubeProxyConfiguration.ipvs.excludeCIDRs[0]: Invalid value: "bad": must be a valid CIDR',
    ]);
  });

  it('reports a negative sync period and a negative minimum together', () => {
    expect(messages(config((c) => ((c.nftables.syncPeriod = -1000), (c.nftables.minSyncPeriod = -1000))))).toEqual([
      'KubeProxyConfiguration.nftables.syncPeriod: Invalid value: -1s: must be greater than 0',
      'KubeProxyConfiguration.nftables.minSyncPeriod: Invalid value: -1s: must be greater than or equal to 0',
    ]);
  });

  it('does not judge the cluster CIDR outside ClusterCIDR mode, as upstream', () => {
    expect(messages(config((c) => ((c.detectLocalMode = 'NodeCIDR'), (c.clusterCIDR = 'junk'))))).toEqual([]);
  });

  it('aggregates several errors the way apimachinery prints them', () => {
    const errors = validateConfiguration(
      config((c) => ((c.mode = 'foo'), (c.oomScoreAdj = 2000))),
      CTX,
    );
    expect(aggregate(errors)).toBe(
      '[KubeProxyConfiguration.mode: Unsupported value: "foo": supported values: "iptables", "ipvs", "nftables", "kernelspace", ' +
        'KubeProxyConfiguration.oomScoreAdj: Invalid value: 2000: must be within the range [-1000, 1000]]',
    );
  });
});
