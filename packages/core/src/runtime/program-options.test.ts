import { describe, expect, it } from 'vitest';
import { defineBackend } from './backend-module.js';
import {
  backendName,
  DEFAULT_SOCKET,
  parseProgramFlags,
  UsageError,
  type ProgramFlagsSpec,
} from './program-options.js';

const KPNG: ProgramFlagsSpec = { program: 'kpng', selectsBackend: true, listenDefault: DEFAULT_SOCKET };
const parseOptions = (argv: string[], env: NodeJS.ProcessEnv = {}, spec: ProgramFlagsSpec = KPNG) =>
  parseProgramFlags(argv, env, spec).options;

const demo = defineBackend({
  name: 'demo',
  program: 'kpng-demo',
  proxyMode: 'demo',
  summary: 'a backend for tests',
  flags: {
    'cluster-cidr': { type: 'string', help: 'pod CIDRs' },
    strict: { type: 'boolean', help: 'be strict' },
    tag: { type: 'string', help: 'a tag', multiple: true },
  },
  parseFlags: (values) => values,
  create: () => {
    throw new Error('not in these tests');
  },
});

describe('parseProgramFlags', () => {
  it('defaults: no source chosen yet, socket, kube-proxy ports, sync periods', () => {
    const o = parseOptions([], {});
    expect(o.source).toBeUndefined();
    expect(o.listen).toEqual({ kind: 'unix', path: DEFAULT_SOCKET.slice('unix://'.length) });
    expect(o.metricsBindAddress).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 10249 });
    expect(o.healthzBindAddress).toEqual({ kind: 'tcp', host: '0.0.0.0', port: 10256 });
    expect([o.minSyncPeriodMs, o.syncPeriodMs, o.fullSyncPeriodMs]).toEqual([0, 30_000, 3_600_000]);
    expect([o.dryRun, o.cleanup]).toEqual([false, false]);
  });

  it('infers the source from --file, --api and --connect, and takes the node name from NODE_NAME', () => {
    expect(parseOptions(['--file', 'x.yaml']).source).toBe('file');
    expect(parseOptions(['--api=unix:///tmp/g.sock']).source).toBe('api');
    expect(parseOptions(['--connect=unix:///tmp/l.sock', '--backend', 'log']).source).toBe('connect');
    expect(parseOptions([], { NODE_NAME: 'n7' }).nodeName).toBe('n7');
    expect(parseOptions(['--hostname-override', 'n8'], { NODE_NAME: 'n7' }).nodeName).toBe('n8');
  });

  it('a backend program serves no stream unless asked, and never when it consumes one', () => {
    const backend: ProgramFlagsSpec = { program: 'kpng-demo', backend: demo };
    expect(parseOptions([], {}, backend).listen).toBeUndefined();
    expect(parseOptions(['--listen', '127.0.0.1:12001'], {}, backend).listen).toEqual({
      kind: 'tcp',
      host: '127.0.0.1',
      port: 12001,
    });
    expect(parseOptions(['--connect', 'unix:///tmp/l.sock'], {}, { ...KPNG, backend: demo }).listen).toBeUndefined();
  });

  it('hands the backend its own flags, typed as declared, and nothing else', () => {
    const { options, backendValues } = parseProgramFlags(
      ['--cluster-cidr', '198.18.0.0/16', '--strict', '--tag', 'a', '--tag=b', '--node-name', 'n1'],
      {},
      { program: 'kpng-demo', backend: demo },
    );
    expect(backendValues).toEqual({ 'cluster-cidr': '198.18.0.0/16', strict: true, tag: ['a', 'b'] });
    expect(options.nodeName).toBe('n1');
    expect(() => parseOptions(['--cluster-cidr', 'x'])).toThrow(/Unknown option '--cluster-cidr' \(see kpng --help\)/);
  });

  it('finds --backend before parsing, in both spellings', () => {
    expect(backendName(['--backend', 'nft', '--cluster-cidr', 'x'])).toBe('nft');
    expect(backendName(['-v', '2', '--backend=@kpng/nft'])).toBe('@kpng/nft');
    expect(backendName(['--file', 'x', '--', '--backend', 'nft'])).toBeUndefined();
  });

  it('"none" disables a server', () => {
    const o = parseOptions(['--listen', 'none', '--metrics-bind-address=none', '--healthz-bind-address=']);
    expect([o.listen, o.metricsBindAddress, o.healthzBindAddress]).toEqual([undefined, undefined, undefined]);
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['--source', 'etcd'], /--source: must be one of kube, file, api, connect, got "etcd"/],
    [['--source', 'api'], /--source=api needs --api/],
    [['--file', 'a', '--kubeconfig', 'b'], /choose one source: --file, --kubeconfig\/--master/],
    [['--file', 'a', '--connect', 'b'], /choose one source: --file, --connect/],
    [['--connect', 'unix:///x'], /--connect needs a backend to feed/],
    [['--sync-period', 'soon'], /--sync-period: invalid duration "soon"/],
    [['--min-sync-period', '1m', '--sync-period', '30s'], /must not exceed --sync-period/],
    [['--listen', 'tcp://127.0.0.1:1234'], /--listen: invalid address/],
    [['--listen', '0.0.0.0:12001'], /--listen: "0.0.0.0:12001" is not a unix socket or loopback address/],
    [['--v', 'loud'], /--v: must be a non-negative integer/],
    [['-o', 'xml'], /--output: must be one of summary, json, yaml/],
    [['serve'], /unexpected argument "serve"/],
    [['--api', 'central'], /--api: invalid address "central": expected host:port/],
    [['--api='], /--api: invalid address "": expected host:port/],
    [['--api', 'http://central:12090'], /--api: invalid address "http:\/\/central:12090"/],
    [['--api', 'bad host:12090'], /--api: invalid address "bad host:12090": "bad host" is not an IP/],
    [['--api', 'central:0'], /--api: invalid address "central:0": port 0 cannot be dialled/],
    [['--connect', 'kpng.sock', '--backend', 'log'], /--connect: invalid address "kpng.sock"/],
    [['--connect', 'unix://kpng.sock', '--backend', 'log'], /--connect: .*must be absolute/],
    [
      ['--connect', '10.0.0.1:12090', '--backend', 'log'],
      /--connect: "10.0.0.1:12090" is not a unix socket or loopback/,
    ],
  ])('%j fails with a clear message', (argv, message) => {
    expect(() => parseOptions(argv)).toThrow(UsageError);
    expect(() => parseOptions(argv)).toThrow(message);
  });

  it('a backend flag that shadows a common flag is a programming error', () => {
    const clash = defineBackend({ ...demo, flags: { 'node-name': { type: 'string', help: 'x' } } });
    expect(() => parseProgramFlags([], {}, { program: 'x', backend: clash })).toThrow(
      /flag --node-name is already a common flag/,
    );
  });
});
