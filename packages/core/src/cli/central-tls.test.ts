import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { harness } from '../stream/testdata/harness.js';
import { makeTestPki, type TestPki } from '../stream/testdata/pki.js';
import { main } from './main.js';
import { captureOutput } from './testdata/capture-output.js';

const EXAMPLE = new URL('../../../../examples/cluster.yaml', import.meta.url).pathname;
const h = harness();
let pki: TestPki;
beforeAll(async () => void (pki = await makeTestPki(await h.dir())));
afterAll(() => h.cleanup());
afterEach(() => vi.restoreAllMocks());

/** A loopback port free a moment ago (the central core's flags need a number). */
function freePort(): Promise<number> {
  const s = createServer();
  return new Promise((resolve) =>
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    }),
  );
}

const QUIET = ['--listen=none', '--metrics-bind-address=none', '--healthz-bind-address=none'];
const serveTls = (p: TestPki) => [
  `--global-tls-cert=${p.server.certPath}`,
  `--global-tls-key=${p.server.keyPath}`,
  `--global-tls-client-ca=${p.caPath}`,
];
const dialTls = (p: TestPki) => [
  `--api-tls-ca=${p.caPath}`,
  `--api-tls-cert=${p.client.certPath}`,
  `--api-tls-key=${p.client.keyPath}`,
];

describe('kpng central core and node agent over mutual TLS (loopback, TLS forced by the flags)', () => {
  it('the agent gets its node-local state through the TLS global stream', async () => {
    const io = captureOutput();
    const port = await freePort();
    const stop = new AbortController();
    const central = main(
      ['--file', EXAMPLE, `--global-listen=127.0.0.1:${port}`, ...serveTls(pki), ...QUIET],
      {},
      {
        signal: stop.signal,
      },
    );
    try {
      const agent = ['--dry-run', `--api=127.0.0.1:${port}`, ...dialTls(pki), '--node-name=node-a'];
      expect(await main(agent, {})).toBe(0);
      // stdout also has the central core's own first state (its node is this host), hence the anchor.
      expect(io.out()).toMatch(/^node node-a \(zone zone-a\): 6 services/m);
      expect(io.err()).toMatch(/central core at 127\.0\.0\.1:\d+ \(mutual TLS\)/);
    } finally {
      stop.abort();
      expect(await central).toBe(0);
    }
  });

  it.each<[string, (p: TestPki) => string[], RegExp]>([
    [
      'a non-loopback --global-listen without TLS',
      () => ['--file', EXAMPLE, '--global-listen=0.0.0.0:12090'],
      /kpng: --global-listen: 0\.0\.0\.0:12090 is not loopback, .*--global-tls-cert, --global-tls-key, --global-tls-client-ca/,
    ],
    [
      'a missing certificate file',
      (p) => [
        '--file',
        EXAMPLE,
        '--global-listen=127.0.0.1:0',
        ...serveTls(p).slice(1),
        `--global-tls-cert=${join(p.caPath, 'nope')}`,
      ],
      /kpng: --global-tls-cert \S+nope: ENOTDIR/,
    ],
    [
      "an agent key that is not its certificate's",
      (p) => ['--api=127.0.0.1:1', ...dialTls(p).slice(0, 2), `--api-tls-key=${p.strangerClient.keyPath}`],
      /kpng: --api-tls-key \S+stranger\.key is not the private key of --api-tls-cert/,
    ],
  ])('%s exits 2 naming the flag', async (_, argv, message) => {
    const io = captureOutput();
    expect(await main([...argv(pki), ...QUIET], {})).toBe(2);
    expect(io.err()).toMatch(message);
  });
});
