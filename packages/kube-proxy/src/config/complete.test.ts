import { describe, expect, it } from 'vitest';
import { parseFlags } from '../flags/parse.js';
import { completeConfiguration, CompleteError, type Completed } from './complete.js';

const FILES: Readonly<Record<string, string>> = {
  '/etc/kp/nft.yaml': [
    'apiVersion: kubeproxy.config.k8s.io/v1alpha1',
    'kind: KubeProxyConfiguration',
    'mode: nftables',
    'hostnameOverride: from-file',
    'clusterCIDR: 198.18.0.0/16',
    'nftables:',
    '  syncPeriod: 20s',
    '  minSyncPeriod: 2s',
    'clientConnection:',
    '  kubeconfig: /var/lib/kube-proxy/kubeconfig',
  ].join('\n'),
  '/etc/kp/blank-mode.yaml': [
    'apiVersion: kubeproxy.config.k8s.io/v1alpha1',
    'kind: KubeProxyConfiguration',
    'iptables:',
    '  syncPeriod: 10s',
    '  minSyncPeriod: 3s',
    '  masqueradeAll: true',
  ].join('\n'),
  '/etc/kp/typo.yaml':
    'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nnftable:\n  syncPeriod: 1s\n',
};

function complete(...argv: string[]): Completed {
  return completeConfiguration(parseFlags(argv), {
    defaultMode: 'nftables',
    readFile: (path) => {
      const text = FILES[path];
      if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
      return text;
    },
  });
}

describe('completeConfiguration without --config: defaults plus flags', () => {
  it('puts the generic flags in the nftables section in nftables mode', () => {
    const { config } = complete(
      '--proxy-mode=nftables',
      '--iptables-sync-period=10s',
      '--iptables-min-sync-period=0s',
      '--masquerade-all',
      '--cluster-cidr=198.18.0.0/16,2001:db8::/48',
      '--nodeport-addresses=198.18.255.0/24',
    );
    expect(config.nftables).toMatchObject({ syncPeriod: 10_000, minSyncPeriod: 0, masqueradeAll: true });
    expect(config.iptables).toMatchObject({ syncPeriod: 30_000, minSyncPeriod: 1_000, masqueradeAll: false });
    expect(config.clusterCIDR).toBe('198.18.0.0/16,2001:db8::/48');
    expect(config.nodePortAddresses).toEqual(['198.18.255.0/24']);
  });

  it('reads a blank mode as nftables, and says so', () => {
    const { config, warnings } = complete('--iptables-sync-period=10s');
    expect(config.mode).toBe('nftables');
    expect(config.nftables.syncPeriod).toBe(10_000);
    expect(warnings).toEqual([expect.stringContaining('mode is blank: using nftables')]);
  });

  it('applies the platform defaults: ClusterCIDR detection, primary NodePort addresses in nftables mode', () => {
    const { config } = complete();
    expect(config.detectLocalMode).toBe('ClusterCIDR');
    expect(config.nodePortAddresses).toEqual(['primary']);
  });

  it('ignores --ipvs-*sync-period outside ipvs mode, with a warning (upstream: silently)', () => {
    const { config, warnings } = complete(
      '--proxy-mode=nftables',
      '--ipvs-sync-period=5s',
      '--ipvs-min-sync-period=1s',
    );
    expect(config.nftables.syncPeriod).toBe(30_000);
    expect(config.ipvs.syncPeriod).toBe(30_000);
    expect(warnings).toEqual([
      'flag --ipvs-sync-period has no effect in nftables mode',
      'flag --ipvs-min-sync-period has no effect in nftables mode',
    ]);
  });

  it('applies the ipvs period flags in ipvs mode only', () => {
    const { config } = complete('--proxy-mode=ipvs', '--ipvs-sync-period=5s', '--iptables-sync-period=7s');
    expect(config.ipvs.syncPeriod).toBe(5_000);
    expect(config.iptables.syncPeriod).toBe(30_000);
  });

  it('warns that --iptables-masquerade-bit does not reach nftables mode, as upstream', () => {
    const { config, warnings } = complete('--proxy-mode=nftables', '--iptables-masquerade-bit=12');
    expect([config.iptables.masqueradeBit, config.nftables.masqueradeBit]).toEqual([12, 14]);
    expect(warnings).toEqual([expect.stringContaining('--iptables-masquerade-bit has no effect in nftables mode')]);
  });

  it.each([
    [['--healthz-port=0'], '', '127.0.0.1:10249'],
    [
      ['--healthz-bind-address=198.18.255.1', '--metrics-bind-address=127.0.0.1', '--metrics-port=10250'],
      '198.18.255.1:10256',
      '127.0.0.1:10250',
    ],
    // As upstream: the deprecated port only fills a bare IP, the default address already has one.
    [['--metrics-port=10250'], '0.0.0.0:10256', '127.0.0.1:10249'],
    [['--metrics-bind-address=127.0.0.1', '--metrics-port=0'], '0.0.0.0:10256', ''],
    [['--healthz-bind-address='], '', '127.0.0.1:10249'],
    [['--metrics-bind-address=[2001:db8::1]:9999'], '0.0.0.0:10256', '[2001:db8::1]:9999'],
  ])('servers for %j: healthz %j, metrics %j', (argv, healthz, metrics) => {
    const { config } = complete(...argv);
    expect([config.healthzBindAddress, config.metricsBindAddress]).toEqual([healthz, metrics]);
  });

  it('warns about deprecated flags', () => {
    expect(complete('--healthz-port=10256').warnings).toContain(
      'flag --healthz-port has been deprecated, use --healthz-bind-address instead',
    );
  });

  it('remembers which flag set which field, so validation errors can name it', () => {
    const { fieldFlags } = complete(
      '--proxy-mode=nftables',
      '--iptables-masquerade-bit=32',
      '--iptables-sync-period=0s',
      '--nodeport-addresses=bad',
    );
    expect(Object.fromEntries(fieldFlags)).toEqual({
      'KubeProxyConfiguration.mode': '--proxy-mode',
      'KubeProxyConfiguration.iptables.masqueradeBit': '--iptables-masquerade-bit',
      'KubeProxyConfiguration.nftables.syncPeriod': '--iptables-sync-period',
      'KubeProxyConfiguration.nodePortAddresses': '--nodeport-addresses',
    });
  });

  it('lower-cases --hostname-override and refuses a blank one', () => {
    expect(complete('--hostname-override= Node-A ').config.hostnameOverride).toBe('node-a');
    expect(() => complete('--hostname-override=   ')).toThrow(new CompleteError('empty hostname-override is invalid'));
  });
});

describe('completeConfiguration with --config: the file wins', () => {
  it('takes the file and ignores the flags upstream ignores, naming them', () => {
    const c = complete(
      '--config=/etc/kp/nft.yaml',
      '--proxy-mode=ipvs',
      '--cluster-cidr=10.0.0.0/8',
      '--iptables-sync-period=1s',
      '--master=https://198.18.255.1:6443',
    );
    expect(c.config).toMatchObject({
      mode: 'nftables',
      clusterCIDR: '198.18.0.0/16',
      nftables: { syncPeriod: 20_000, minSyncPeriod: 2_000 },
    });
    expect(c.config.clientConnection.kubeconfig).toBe('/var/lib/kube-proxy/kubeconfig');
    expect(c.master).toBe('https://198.18.255.1:6443');
    expect(c.warnings).toEqual([
      'these flags are ignored because --config is given (as upstream kube-proxy does): --proxy-mode, --cluster-cidr, --iptables-sync-period',
    ]);
    expect(c.fieldFlags.size).toBe(0);
  });

  it('still honours --hostname-override and the logging flags', () => {
    const { config, warnings } = complete(
      '--config',
      '/etc/kp/nft.yaml',
      '--hostname-override=Node-B',
      '-v=4',
      '--logging-format=json',
    );
    expect(config.hostnameOverride).toBe('node-b');
    expect(config.logging).toMatchObject({ verbosity: 4, format: 'json' });
    expect(warnings).toEqual([]);
  });

  it('keeps the file hostname without an override', () => {
    expect(complete('--config=/etc/kp/nft.yaml').config.hostnameOverride).toBe('from-file');
  });

  it("gives a blank mode the iptables section's periods and masqueradeAll, as upstream's conversion does", () => {
    const { config } = complete('--config=/etc/kp/blank-mode.yaml');
    expect(config.mode).toBe('nftables');
    expect(config.nftables).toMatchObject({ syncPeriod: 10_000, minSyncPeriod: 3_000, masqueradeAll: true });
  });

  it.each([['/etc/kp/missing.yaml', 'open /etc/kp/missing.yaml: no such file or directory']])(
    'fails on %s',
    (path, message) => {
      expect(() => complete(`--config=${path}`)).toThrow(new CompleteError(message));
    },
  );

  it('records the actions', () => {
    const c = complete('--config=/etc/kp/nft.yaml', '--cleanup', '--write-config-to=/tmp/x.yaml');
    expect([c.cleanup, c.writeConfigTo, c.initOnly, c.configFile]).toEqual([
      true,
      '/tmp/x.yaml',
      false,
      '/etc/kp/nft.yaml',
    ]);
  });
});

describe('a file with an unknown field', () => {
  it('loads leniently, as upstream, and says which field it ignored', () => {
    const { config, warnings } = complete('--config=/etc/kp/typo.yaml');
    expect(config.nftables.syncPeriod).toBe(30_000);
    expect(warnings).toContain(
      '/etc/kp/typo.yaml: Using lenient decoding as strict decoding failed: strict decoding error: unknown field "nftable"',
    );
  });
});

describe('logsapi flags', () => {
  it('set the logging options, also over a --config file (they are logging flags)', () => {
    const { config } = complete(
      '--config=/etc/kp/nft.yaml',
      '--log-text-split-stream',
      '--log-text-info-buffer-size=64Ki',
      '--log-json-split-stream=false',
    );
    expect(config.logging.options).toMatchObject({
      text: { splitStream: true, infoBufferSize: '64Ki' },
      json: { splitStream: false },
    });
  });
});
