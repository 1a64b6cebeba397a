import { describe, expect, it } from 'vitest';
import { parseOptions, UsageError } from './options.js';

describe('parseOptions', () => {
  it('defaults: in-process against the API server, kube-proxy periods and addresses', () => {
    const opts = parseOptions([], {}, 'host-1');
    expect(opts.source).toEqual({ kind: 'kube' });
    expect(opts.nodeName).toBe('host-1');
    expect(opts.config.nodePortAddresses).toBe('primary');
    expect(opts.config.localDetector).toEqual({ mode: 'None' });
    expect(opts.metricsBindAddress).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 10249 });
    expect(opts.healthzBindAddress).toEqual({ kind: 'tcp', host: '0.0.0.0', port: 10256 });
    expect([opts.minSyncPeriodMs, opts.syncPeriodMs, opts.fullSyncPeriodMs]).toEqual([0, 30_000, 3_600_000]);
  });

  const good: { argv: string[]; check: (o: ReturnType<typeof parseOptions>) => unknown; expected: unknown }[] = [
    { argv: ['--connect', 'unix:///run/kpng/kpng.sock'], check: (o) => o.source, expected: { kind: 'connect', address: 'unix:///run/kpng/kpng.sock' } },
    { argv: ['--file', '/tmp/c.yaml'], check: (o) => o.source, expected: { kind: 'file', path: '/tmp/c.yaml' } },
    { argv: ['--cluster-cidr', '10.0.0.0/8, fd00::/48'], check: (o) => o.config.localDetector, expected: { mode: 'ClusterCIDR', clusterCIDRs: ['10.0.0.0/8', 'fd00::/48'] } },
    { argv: ['--detect-local-mode', 'InterfaceNamePrefix', '--pod-interface-name-prefix', 'veth'], check: (o) => o.config.localDetector, expected: { mode: 'InterfaceNamePrefix', prefix: 'veth' } },
    { argv: ['--nodeport-addresses', '0.0.0.0/0,::/0'], check: (o) => o.config.nodePortAddresses, expected: ['0.0.0.0/0', '::/0'] },
    { argv: ['--masquerade-all', '--masquerade-bit', '3'], check: (o) => [o.config.masqueradeAll, o.config.masqueradeBit], expected: [true, 3] },
    { argv: ['--ip-families', 'IPv6'], check: (o) => o.config.families, expected: ['IPv6'] },
    { argv: ['--metrics-bind-address', ''], check: (o) => o.metricsBindAddress, expected: undefined },
    { argv: ['--min-sync-period', '250ms', '--full-sync-period', '30m'], check: (o) => [o.minSyncPeriodMs, o.fullSyncPeriodMs], expected: [250, 1_800_000] },
    { argv: ['--netns', 'kpng-t-1-node', '--cleanup'], check: (o) => [o.netns, o.cleanup], expected: ['kpng-t-1-node', true] },
  ];
  it.each(good)('$argv', ({ argv, check, expected }) => {
    expect(check(parseOptions(argv, {}, 'h'))).toEqual(expected);
  });

  it('takes the node name from --node-name, then NODE_NAME', () => {
    expect(parseOptions([], { NODE_NAME: 'n1' }, 'h').nodeName).toBe('n1');
    expect(parseOptions(['--node-name', 'n2'], { NODE_NAME: 'n1' }, 'h').nodeName).toBe('n2');
  });

  const bad: { argv: string[]; message: RegExp }[] = [
    { argv: ['--connect', 'x', '--file', 'y'], message: /choose one source/ },
    { argv: ['--detect-local-mode', 'ClusterCIDR'], message: /needs --cluster-cidr/ },
    { argv: ['--detect-local-mode', 'Magic'], message: /unknown --detect-local-mode/ },
    { argv: ['--cluster-cidr', 'not-a-cidr'], message: /bad CIDR/ },
    { argv: ['--detect-local-mode', 'BridgeInterface', '--pod-bridge-interface', 'br0"; drop'], message: /bad bridge interface name/ },
    { argv: ['--masquerade-bit', '40'], message: /masqueradeBit/ },
    { argv: ['--sync-period', 'soon'], message: /not a duration/ },
    { argv: ['--ip-families', 'IPv5'], message: /--ip-families/ },
    { argv: ['--bogus'], message: /Unknown option/ },
  ];
  it.each(bad)('refuses $argv', ({ argv, message }) => {
    expect(() => parseOptions(argv, {}, 'h')).toThrow(UsageError);
    expect(() => parseOptions(argv, {}, 'h')).toThrow(message);
  });
});
