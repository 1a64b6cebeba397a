import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from './main.js';
import { captureOutput } from './testdata/capture-output.js';

const EXAMPLE = new URL('../../../../examples/cluster.yaml', import.meta.url).pathname;

describe('kpng main', () => {
  afterEach(() => vi.restoreAllMocks());

  it('--dry-run prints the node-local state of the example cluster as JSON', async () => {
    const io = captureOutput();
    const code = await main(['--dry-run', '--file', EXAMPLE, '--node-name', 'node-a', '-o', 'json'], {});
    expect(code).toBe(0);
    const state = JSON.parse(io.out());
    expect(state.node.name).toBe('node-a');
    expect(state.services.map((s: { key: string }) => s.key)).toEqual([
      'default/kubernetes',
      'kube-system/kube-dns',
      'shop/cart',
      'shop/checkout',
      'shop/frontend',
      'shop/inventory',
    ]);
  });

  it('with no cluster configured, uses the example cluster as node-a', async () => {
    const io = captureOutput();
    const code = await main(['--dry-run'], { HOME: '/nonexistent' });
    expect(code).toBe(0);
    expect(io.out()).toMatch(/^node node-a \(zone zone-a\): 6 services/);
    expect(io.err()).toMatch(/no cluster configured: the example cluster/);
  });

  it.each([
    [['--bogus'], /kpng: Unknown option '--bogus'/],
    [['--sync-period', 'x'], /kpng: --sync-period: invalid duration "x"/],
    [['--output', 'xml'], /kpng: --output: must be one of summary, json, yaml/],
    // A malformed stream address exits at once instead of being dialled (and retried) forever.
    [['--api', 'central'], /kpng: --api: invalid address "central": expected host:port/],
    [['--connect', 'unix://kpng.sock', '--backend', 'log'], /kpng: --connect: invalid address "unix:\/\/kpng.sock"/],
  ])('rejects bad flags with exit code 2: %j', async (argv, message) => {
    const io = captureOutput();
    expect(await main(argv, {})).toBe(2);
    expect(io.err()).toMatch(message);
  });

  it("--backend log runs the log backend; its own flags join kpng's and are validated", async () => {
    const io = captureOutput();
    expect(await main(['--backend', 'log', '--help'], {})).toBe(0);
    expect(io.out()).toMatch(/Backend log \(log\): prints each node-local state/);
    expect(io.out()).toMatch(/--log-format FORMAT\s+summary\|json\|yaml \(default summary\)/);
    expect(await main(['--backend', 'log', '--log-format', 'xml'], {})).toBe(2);
    expect(io.err()).toMatch(/kpng: --log-format: must be one of summary, json, yaml, got "xml"/);
    expect(await main(['--log-format', 'json'], {})).toBe(2);
    expect(io.err()).toMatch(/Unknown option '--log-format'/);
  });

  it("--backend takes a file path, and the backend's flags with it", async () => {
    const io = captureOutput();
    const file = new URL('../../examples/services-file-backend.ts', import.meta.url).pathname;
    expect(await main(['--backend', file, '--help'], {})).toBe(0);
    expect(io.out()).toMatch(/Backend services-file \(services-file\): writes one line per service port/);
    expect(io.out()).toMatch(/--out PATH\s+the file to write/);
  });

  it('--with-netpol puts the enforcer (@kpng/netpol) beside the backend; it needs the API server as source', async () => {
    const io = captureOutput();
    expect(await main(['--backend', 'log', '--with-netpol', '--help'], {})).toBe(0);
    expect(io.out()).toMatch(/--with-netpol\s+also enforce NetworkPolicy/);
    expect(io.out()).toMatch(/--log-format FORMAT/);
    expect(await main(['--with-netpol', '--file', 'cluster.yaml'], {})).toBe(2);
    expect(io.err()).toMatch(/NetworkPolicy enforcement needs the API server as source/);
  });

  it('--policy-view (a core serving the policy view on its stream) needs the API server as source too', async () => {
    const io = captureOutput();
    expect(await main(['--policy-view', '--file', 'cluster.yaml'], {})).toBe(2);
    expect(io.err()).toMatch(/NetworkPolicy enforcement needs the API server as source/);
  });

  it('a backend that cannot be loaded, or is not a backend module, is a usage error', async () => {
    const io = captureOutput();
    expect(await main(['--backend', 'no-such-backend'], {})).toBe(2);
    expect(io.err()).toMatch(/kpng: --backend no-such-backend: cannot load @kpng\/no-such-backend/);
    expect(await main(['--backend', 'node:os'], {})).toBe(2);
    expect(io.err()).toMatch(/node:os does not export a backend module/);
    expect(await main(['--cleanup'], {})).toBe(2);
    expect(io.err()).toMatch(/kpng: --cleanup needs a backend/);
  });

  it('prints usage and version', async () => {
    const io = captureOutput();
    expect(await main(['--help'], {})).toBe(0);
    expect(await main(['--version'], {})).toBe(0);
    expect(io.out()).toMatch(/Usage: kpng \[run\] \[flags\]/);
    expect(io.out()).toMatch(/^ +kpng explain NAMESPACE\/NAME --backend /m);
    expect(io.out()).toMatch(/kpng \d+\.\d+\.\d+/);
  });
});
