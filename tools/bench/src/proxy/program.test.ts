import { describe, expect, it } from 'vitest';
import { namespaceRefusal, parseProgram, programLaunch } from './program.js';

const input = {
  kubeconfig: '/tmp/k.yaml',
  nodeName: 'node-000',
  netns: 'kpng-t-42-proxy-run-0',
  metricsPort: 10249,
  healthPort: 10256,
};

describe('programLaunch', () => {
  it('starts kpng-nft with --netns and no KPNG_NETNS', () => {
    const launch = programLaunch('kpng-nft', input);
    expect(launch.args).toEqual([
      '--kubeconfig',
      '/tmp/k.yaml',
      '--node-name',
      'node-000',
      '--netns',
      'kpng-t-42-proxy-run-0',
      '--metrics-bind-address',
      '127.0.0.1:10249',
      '--healthz-bind-address',
      '127.0.0.1:10256',
      '--logging-format=json',
    ]);
    expect(launch.env).toEqual({});
    expect(launch.readyMsg).toBe('serving');
  });

  it('starts the compat kube-proxy in nftables mode with the namespace in KPNG_NETNS', () => {
    const launch = programLaunch('kube-proxy', input);
    expect(launch.env).toEqual({ KPNG_NETNS: 'kpng-t-42-proxy-run-0' });
    expect(launch.args).toEqual(
      expect.arrayContaining([
        '--proxy-mode=nftables',
        '--kubeconfig=/tmp/k.yaml',
        '--hostname-override=node-000',
        '--metrics-bind-address=127.0.0.1:10249',
        '--healthz-bind-address=127.0.0.1:10256',
        '--logging-format=json',
        '--iptables-min-sync-period=0s',
        '--nodeport-addresses=127.0.0.0/8',
        '--conntrack-max-per-core=0',
      ]),
    );
    // kube-proxy has no --netns flag: the namespace must only come through the environment.
    expect(launch.args.some((a) => a.includes('netns'))).toBe(false);
    expect(launch.readyMsg).toBe('starting kube-proxy (kpng)');
  });

  it('passes --min-sync-period through to kube-proxy', () => {
    expect(programLaunch('kube-proxy', { ...input, minSyncPeriod: '1s' }).args).toContain(
      '--iptables-min-sync-period=1s',
    );
  });
});

describe('programLaunch kpng-ebpf', () => {
  it('attaches to the cgroup the bench made, with no --netns; refuses to start without one', () => {
    const launch = programLaunch('kpng-ebpf', { ...input, cgroup: '/sys/fs/cgroup/kpng-bench-proxy-42-run-0' });
    expect(launch.args).toEqual([
      '--kubeconfig',
      '/tmp/k.yaml',
      '--node-name',
      'node-000',
      '--cgroup-root',
      '/sys/fs/cgroup/kpng-bench-proxy-42-run-0',
      '--metrics-bind-address',
      '127.0.0.1:10249',
      '--healthz-bind-address',
      '127.0.0.1:10256',
      '--logging-format=json',
    ]);
    expect(launch.env).toEqual({});
    expect(() => programLaunch('kpng-ebpf', input)).toThrow(/cgroup/);
  });
});

describe('parseProgram', () => {
  it.each([
    [undefined, 'kpng-nft'],
    ['kpng-nft', 'kpng-nft'],
    ['kube-proxy', 'kube-proxy'],
  ])('%s -> %s', (value, program) => expect(parseProgram(value)).toBe(program));

  it('rejects an unknown program', () =>
    expect(() => parseProgram('iptables')).toThrow(/kpng-nft, kube-proxy, kpng-ebpf/));
});

describe('namespaceRefusal (the compat binary never runs outside the bench test namespace)', () => {
  const exists = (name: string) => name === 'kpng-t-42-proxy-run-0';
  it.each([
    [undefined, /root namespace/],
    ['', /root namespace/],
    ['kpng-t-43-proxy-run-0', /not a lab namespace created by this process/],
    ['kpng-b', /not a lab namespace/],
    ['kpng-t-42-gone', /does not exist/],
  ])('refuses %j', (netns, reason) => expect(namespaceRefusal(netns, 42, exists)).toMatch(reason));

  it('accepts a lab namespace of this process that exists', () =>
    expect(namespaceRefusal('kpng-t-42-proxy-run-0', 42, exists)).toBeUndefined());
});
