import { describe, expect, it } from 'vitest';
import { DEFAULT_SOCKET, parseOptions, UsageError } from './options.js';

describe('parseOptions', () => {
  it('defaults: no source chosen yet, socket, kube-proxy ports, sync periods', () => {
    const o = parseOptions([], {});
    expect(o.source).toBeUndefined();
    expect(o.listen).toEqual({ kind: 'unix', path: DEFAULT_SOCKET.slice('unix://'.length) });
    expect(o.metricsBindAddress).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 10249 });
    expect(o.healthzBindAddress).toEqual({ kind: 'tcp', host: '0.0.0.0', port: 10256 });
    expect([o.minSyncPeriodMs, o.syncPeriodMs, o.fullSyncPeriodMs]).toEqual([0, 30_000, 3_600_000]);
    expect(o.dryRun).toBe(false);
  });

  it('infers the source from --file and --api, and takes the node name from NODE_NAME', () => {
    expect(parseOptions(['--file', 'x.yaml'], {}).source).toBe('file');
    expect(parseOptions(['--api=unix:///tmp/g.sock'], {}).source).toBe('api');
    expect(parseOptions([], { NODE_NAME: 'n7' }).nodeName).toBe('n7');
    expect(parseOptions(['--hostname-override', 'n8'], { NODE_NAME: 'n7' }).nodeName).toBe('n8');
  });

  it('"none" disables a server', () => {
    const o = parseOptions(['--listen', 'none', '--metrics-bind-address=none', '--healthz-bind-address='], {});
    expect([o.listen, o.metricsBindAddress, o.healthzBindAddress]).toEqual([undefined, undefined, undefined]);
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['--source', 'etcd'], /--source: must be one of kube, file, api, got "etcd"/],
    [['--source', 'api'], /--source=api needs --api/],
    [['--sync-period', 'soon'], /--sync-period: invalid duration "soon"/],
    [['--min-sync-period', '1m', '--sync-period', '30s'], /must not exceed --sync-period/],
    [['--listen', 'tcp://127.0.0.1:1234'], /--listen: invalid address/],
    [['--v', 'loud'], /--v: must be a non-negative integer/],
    [['-o', 'xml'], /--output: must be one of summary, json, yaml/],
    [['serve'], /unexpected argument "serve"/],
  ])('%j fails with a clear message', (argv, message) => {
    expect(() => parseOptions(argv, {})).toThrow(UsageError);
    expect(() => parseOptions(argv, {})).toThrow(message);
  });
});
