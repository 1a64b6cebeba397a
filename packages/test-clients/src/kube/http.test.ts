import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getObject, getText } from './http.js';

// A loopback HTTP server answering every GET with `size` bytes of JSON: the reads' bounds.
describe('bounded GETs', () => {
  let server: Server;
  let kc: KubeConfig;
  let size = 0;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ items: [], metadata: { resourceVersion: '1' }, pad: 'x'.repeat(size) }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('getText refuses an answer over its bound, and reads one under it', async () => {
    size = 1000;
    const signal = AbortSignal.timeout(30_000); // a bound on a hung test, not a measurement
    await expect(getText(kc, '/metrics', {}, signal, { maxBytes: 100 })).rejects.toThrow(/over 100 bytes/);
    expect((await getText(kc, '/metrics', {}, signal, { maxBytes: 2000 })).length).toBeGreaterThan(1000);
  });

  it('an object past the clients own bound is refused', async () => {
    size = 3 * 1024 * 1024;
    const signal = AbortSignal.timeout(30_000); // a bound on a hung test, not a measurement
    await expect(getObject(kc, '/api/v1/namespaces/a/services/b', signal)).rejects.toThrow(/over 3145728 bytes/);
  });
});
