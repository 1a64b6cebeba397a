import { describe, expect, it } from 'vitest';
import { FlagError, parseFlags } from './parse.js';
import { FLAGS } from './table.js';

/** A valid value for every value flag and what it parses to. */
const SAMPLES: Readonly<Record<string, readonly [string, unknown]>> = {
  config: ['/etc/kube-proxy/config.yaml', '/etc/kube-proxy/config.yaml'],
  'write-config-to': ['/tmp/out.yaml', '/tmp/out.yaml'],
  'feature-gates': ['WinDSR=true,WinOverlay=false', { WinDSR: true, WinOverlay: false }],
  kubeconfig: ['/var/lib/kube-proxy/kubeconfig', '/var/lib/kube-proxy/kubeconfig'],
  master: ['https://198.18.255.1:6443', 'https://198.18.255.1:6443'],
  'kube-api-content-type': ['application/json', 'application/json'],
  'kube-api-burst': ['20', 20],
  'kube-api-qps': ['7.5', 7.5],
  'config-sync-period': ['10m', 600_000],
  'hostname-override': ['node-a', 'node-a'],
  'bind-address': ['198.18.255.1', '198.18.255.1'],
  'healthz-bind-address': ['127.0.0.1:10256', '127.0.0.1:10256'],
  'metrics-bind-address': ['[2001:db8::1]:10249', '[2001:db8::1]:10249'],
  'show-hidden-metrics-for-version': ['1.32', '1.32'],
  'oom-score-adj': ['-500', -500],
  'proxy-mode': ['nftables', 'nftables'],
  'iptables-masquerade-bit': ['15', 15],
  'iptables-sync-period': ['1m', 60_000],
  'iptables-min-sync-period': ['0s', 0],
  'ipvs-sync-period': ['45s', 45_000],
  'ipvs-min-sync-period': ['2s', 2_000],
  'ipvs-scheduler': ['wrr', 'wrr'],
  'ipvs-exclude-cidrs': ['198.18.0.0/16,2001:db8::/32', ['198.18.0.0/16', '2001:db8::/32']],
  'ipvs-tcp-timeout': ['1h', 3_600_000],
  'ipvs-tcpfin-timeout': ['30s', 30_000],
  'ipvs-udp-timeout': ['300ms', 300],
  'network-name': ['cbr0', 'cbr0'],
  'source-vip': ['198.18.1.254', '198.18.1.254'],
  'root-hnsendpoint-name': ['cbr0', 'cbr0'],
  'detect-local-mode': ['NodeCIDR', 'NodeCIDR'],
  'pod-bridge-interface': ['cbr0', 'cbr0'],
  'pod-interface-name-prefix': ['veth', 'veth'],
  'cluster-cidr': ['198.18.0.0/16,2001:db8::/48', '198.18.0.0/16,2001:db8::/48'],
  'nodeport-addresses': ['primary', ['primary']],
  'conntrack-max-per-core': ['0', 0],
  'conntrack-min': ['65536', 65536],
  'conntrack-tcp-timeout-established': ['12h', 43_200_000],
  'conntrack-tcp-timeout-close-wait': ['30m', 1_800_000],
  'conntrack-udp-timeout': ['30s', 30_000],
  'conntrack-udp-timeout-stream': ['2m', 120_000],
  'healthz-port': ['0', 0],
  'metrics-port': ['10250', 10250],
  'proxy-port-range': ['300-2000', '300-2000'],
  v: ['4', 4],
  vmodule: [
    'proxier=5,sync*=3',
    [
      { filePattern: 'proxier', verbosity: 5 },
      { filePattern: 'sync*', verbosity: 3 },
    ],
  ],
  'logging-format': ['json', 'json'],
  'log-flush-frequency': ['10s', 10_000],
  'log-json-info-buffer-size': ['64Ki', '64Ki'],
  'log-text-info-buffer-size': ['1M', '1M'],
  'boot-id-file': ['/proc/sys/kernel/random/boot_id', '/proc/sys/kernel/random/boot_id'],
  'machine-id-file': ['/etc/machine-id', '/etc/machine-id'],
};

/** A value each flag must refuse, with the reason pflag would give. */
const BAD: readonly (readonly [string, string, string])[] = [
  ['masquerade-all', 'yes', 'strconv.ParseBool: parsing "yes": invalid syntax'],
  ['cleanup', 'maybe', 'strconv.ParseBool: parsing "maybe": invalid syntax'],
  ['iptables-masquerade-bit', 'fourteen', 'strconv.ParseInt: parsing "fourteen": invalid syntax'],
  ['conntrack-min', '99999999999', 'strconv.ParseInt: parsing "99999999999": value out of range'],
  ['kube-api-qps', 'fast', 'strconv.ParseFloat: parsing "fast": invalid syntax'],
  ['iptables-sync-period', '30', 'time: invalid duration "30"'],
  [
    'log-text-info-buffer-size',
    'lots',
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
  ],
  ['version', 'v1', 'strconv.ParseBool: parsing "v1": invalid syntax'],
  ['conntrack-tcp-timeout-established', '1d', 'time: invalid duration "1d"'],
  ['bind-address', '198.18.255.1:80', '"198.18.255.1:80" is not a valid IP address'],
  ['healthz-bind-address', 'localhost:10256', '"localhost:10256" is not in a valid format (ip or ip:port)'],
  ['metrics-bind-address', '127.0.0.1:99999', '"127.0.0.1:99999" is not in a valid format (ip or ip:port)'],
  ['proxy-mode', 'userspace', 'must be one of "", iptables, ipvs, nftables, kernelspace, ebpf'],
  ['detect-local-mode', 'PodCIDR', 'must be one of "", ClusterCIDR, NodeCIDR, BridgeInterface, InterfaceNamePrefix'],
  ['ipvs-scheduler', 'random', 'must be one of "", rr, wrr, lc, wlc, lblc, lblcr, sh, dh, sed, nq'],
  ['feature-gates', 'A=maybe', 'invalid value of A=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax'],
  ['feature-gates', 'A', 'missing bool value for A'],
  ['feature-gates', 'WinDSR=true,NoSuchGate=false', 'unrecognized feature gate: NoSuchGate'],
  ['vmodule', 'proxier', '"proxier" does not have the pattern=N format'],
  ['logging-format', 'xml', 'must be one of json, text'],
];

describe('parseFlags', () => {
  it('has a sample for every value flag (add one when adding a flag)', () => {
    const valueFlags = FLAGS.filter((f) => !f.isBool).map((f) => f.name);
    expect(valueFlags.filter((name) => !(name in SAMPLES))).toEqual([]);
  });

  describe.each(Object.entries(SAMPLES))('--%s', (name, [text, expected]) => {
    it('--flag=value', () => {
      expect(parseFlags([`--${name}=${text}`]).get(name)).toEqual(expected);
    });
    it('--flag value', () => {
      expect(parseFlags([`--${name}`, text]).get(name)).toEqual(expected);
    });
  });

  describe.each(FLAGS.filter((f) => f.isBool && f.name !== 'version').map((f) => f.name))('boolean --%s', (name) => {
    it.each([
      [[`--${name}`], true],
      [[`--${name}=true`], true],
      [[`--${name}=false`], false],
      [[`--${name}=1`], true],
      [[`--${name}=F`], false],
    ])('%j is %s', (argv, expected) => {
      expect(parseFlags(argv).get(name)).toBe(expected);
    });
    it('does not take the next argument as its value', () => {
      expect(() => parseFlags([`--${name}`, 'false'])).toThrow(
        '"kube-proxy" does not take any arguments, got ["false"]',
      );
    });
  });

  it.each([
    [['-v', '3'], 3],
    [['-v=3'], 3],
    [['-v3'], 3],
    [['--v=3'], 3],
  ])('verbosity %j', (argv, level) => {
    expect(parseFlags(argv).get('v')).toBe(level);
  });

  it.each([
    [['--version'], true],
    [['--version=raw'], 'raw'],
    [['--version=false'], false],
    [['--version=v1.31.2'], 'v1.31.2'],
    [['-h'], undefined],
  ])('%j', (argv, version) => {
    expect(parseFlags(argv).get('version')).toBe(version);
  });

  it('accumulates lists and maps over repeated flags, and the last scalar wins', () => {
    const flags = parseFlags([
      '--nodeport-addresses=198.18.255.0/24',
      '--nodeport-addresses',
      '2001:db8:ff::/64',
      '--feature-gates=WinDSR=true',
      '--feature-gates=WinOverlay=false,WinDSR=false',
      '--proxy-mode=ipvs',
      '--proxy-mode=nftables',
    ]);
    expect(flags.get('nodeport-addresses')).toEqual(['198.18.255.0/24', '2001:db8:ff::/64']);
    expect(flags.get('feature-gates')).toEqual({ WinDSR: false, WinOverlay: false });
    expect(flags.get('proxy-mode')).toBe('nftables');
    expect(flags.names()).toEqual(['nodeport-addresses', 'feature-gates', 'proxy-mode']);
  });

  it.each([
    [['--masquerade_all'], 'masquerade-all', true],
    [['--iptables_min_sync_period=0s'], 'iptables-min-sync-period', 0],
    [['--hostname_override', 'node-a'], 'hostname-override', 'node-a'],
  ])('normalises _ to - in flag names as upstream: %j', (argv, name, value) => {
    expect(parseFlags(argv).get(name)).toBe(value);
  });

  it('takes the next argument as a value even when it looks like a flag, as pflag does', () => {
    expect(parseFlags(['--hostname-override', '--cleanup']).get('hostname-override')).toBe('--cleanup');
  });

  it.each(BAD)('refuses --%s=%s, naming the flag and the value', (name, value, reason) => {
    const shown = name === 'v' ? '-v, --v' : `--${name}`;
    expect(() => parseFlags([`--${name}=${value}`])).toThrow(
      new FlagError(`invalid argument ${JSON.stringify(value)} for "${shown}" flag: ${reason}`),
    );
  });

  it.each([
    [['--nftables-sync-period=30s'], 'unknown flag: --nftables-sync-period'],
    [['--sync-period', '30s'], 'unknown flag: --sync-period'],
    [['--cleanup-iptables'], 'unknown flag: --cleanup-iptables'],
    [['-x'], "unknown shorthand flag: 'x' in -x"],
    [['-config=/x'], "unknown shorthand flag: 'c' in -config=/x"],
    [['--config'], 'flag needs an argument: --config'],
    [['-v'], "flag needs an argument: 'v' in -v"],
    [['---config=x'], 'bad flag syntax: ---config=x'],
    [['run'], '"kube-proxy" does not take any arguments, got ["run"]'],
    [['--', '--cleanup'], '"kube-proxy" does not take any arguments, got ["--cleanup"]'],
  ])('%j fails: %s', (argv, message) => {
    expect(() => parseFlags(argv)).toThrow(new FlagError(message));
  });
});
