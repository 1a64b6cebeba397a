import { describe, expect, it } from 'vitest';
import { appendPortIfNeeded, withDefaults } from './defaults.js';
import { configurationYaml, encodeConfiguration } from './encode.js';
import { decodeConfiguration } from './decode.js';

/** kube-proxy's defaulted v1alpha1 configuration (`--write-config-to` with no flags), mode aside. */
const UPSTREAM_DEFAULTS = `apiVersion: kubeproxy.config.k8s.io/v1alpha1
bindAddress: 0.0.0.0
bindAddressHardFail: false
clientConnection:
  acceptContentTypes: ""
  burst: 10
  contentType: application/vnd.kubernetes.protobuf
  kubeconfig: ""
  qps: 5
clusterCIDR: ""
configSyncPeriod: 15m0s
conntrack:
  maxPerCore: 32768
  min: 131072
  tcpBeLiberal: false
  tcpCloseWaitTimeout: 1h0m0s
  tcpEstablishedTimeout: 24h0m0s
  udpStreamTimeout: 0s
  udpTimeout: 0s
detectLocal:
  bridgeInterface: ""
  interfaceNamePrefix: ""
detectLocalMode: ""
enableProfiling: false
healthzBindAddress: 0.0.0.0:10256
hostnameOverride: ""
iptables:
  localhostNodePorts: true
  masqueradeAll: false
  masqueradeBit: 14
  minSyncPeriod: 1s
  syncPeriod: 30s
ipvs:
  excludeCIDRs: null
  minSyncPeriod: 0s
  scheduler: ""
  strictARP: false
  syncPeriod: 30s
  tcpFinTimeout: 0s
  tcpTimeout: 0s
  udpTimeout: 0s
kind: KubeProxyConfiguration
logging:
  flushFrequency: 5s
  format: text
  options:
    json:
      infoBufferSize: "0"
    text:
      infoBufferSize: "0"
  verbosity: 0
metricsBindAddress: 127.0.0.1:10249
mode: ""
nftables:
  masqueradeAll: false
  masqueradeBit: 14
  minSyncPeriod: 1s
  syncPeriod: 30s
nodePortAddresses: null
oomScoreAdj: -999
portRange: ""
showHiddenMetricsForVersion: ""
windowsRunAsService: false
winkernel:
  enableDSR: false
  forwardHealthCheckVip: false
  networkName: ""
  rootHnsEndpointName: ""
  sourceVip: ""
`;

describe('withDefaults', () => {
  it("matches upstream's defaulted configuration", () => {
    expect(configurationYaml(withDefaults())).toBe(UPSTREAM_DEFAULTS);
  });

  it.each([
    [
      'a zero duration takes the default',
      { nftables: { syncPeriod: 0 } },
      (c: ReturnType<typeof withDefaults>) => c.nftables.syncPeriod,
      30_000,
    ],
    [
      'a zero minSyncPeriod takes the default (1s), as upstream',
      { nftables: { minSyncPeriod: 0 } },
      (c: ReturnType<typeof withDefaults>) => c.nftables.minSyncPeriod,
      1_000,
    ],
    [
      'an explicit masqueradeBit 0 stays (a pointer upstream)',
      { nftables: { masqueradeBit: 0 } },
      (c: ReturnType<typeof withDefaults>) => c.nftables.masqueradeBit,
      0,
    ],
    [
      'an empty healthz address takes the default',
      { healthzBindAddress: '' },
      (c: ReturnType<typeof withDefaults>) => c.healthzBindAddress,
      '0.0.0.0:10256',
    ],
    [
      'a bare healthz IP gets the port',
      { healthzBindAddress: '198.18.255.1' },
      (c: ReturnType<typeof withDefaults>) => c.healthzBindAddress,
      '198.18.255.1:10256',
    ],
    [
      'an IPv6 bindAddress moves the defaults to IPv6',
      { bindAddress: '::' },
      (c: ReturnType<typeof withDefaults>) => [c.healthzBindAddress, c.metricsBindAddress],
      ['[::]:10256', '[::1]:10249'],
    ],
    [
      'a bare IPv6 metrics address gets brackets and the port',
      { metricsBindAddress: '2001:db8::1' },
      (c: ReturnType<typeof withDefaults>) => c.metricsBindAddress,
      '[2001:db8::1]:10249',
    ],
    [
      'conntrack maxPerCore 0 stays (leave the limit alone)',
      { conntrack: { maxPerCore: 0 } },
      (c: ReturnType<typeof withDefaults>) => c.conntrack.maxPerCore,
      0,
    ],
  ])('%s', (_name, partial, read, expected) => {
    expect(read(withDefaults(partial))).toEqual(expected);
  });
});

describe('appendPortIfNeeded', () => {
  it.each([
    ['198.18.255.1', '198.18.255.1:10256'],
    ['198.18.255.1:80', '198.18.255.1:80'],
    ['2001:db8::1', '[2001:db8::1]:10256'],
    ['[2001:db8::1]:80', '[2001:db8::1]:80'],
    ['not-an-ip', 'not-an-ip'],
  ])('%s -> %s', (address, expected) => {
    expect(appendPortIfNeeded(address, 10256)).toBe(expected);
  });
});

describe('encodeConfiguration', () => {
  it('round-trips through the strict decoder', () => {
    const config = withDefaults({
      mode: 'nftables',
      nodePortAddresses: ['primary'],
      featureGates: { A: true },
      nftables: { tableName: 'kp' },
    });
    const decoded = decodeConfiguration(JSON.stringify(encodeConfiguration(config)));
    expect(withDefaults(decoded.config)).toEqual(config);
  });
});
