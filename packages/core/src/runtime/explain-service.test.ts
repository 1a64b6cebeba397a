import { createServer, type Server } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineBackend } from './backend-module.js';
import { runExplain } from './explain.js';
import { fetchService, MAX_SERVICE_BYTES } from './explain-service.js';
import { logBackend } from './log-backend.js';

const service = (name: string, spec: Record<string, unknown> = {}) => ({
  kind: 'Service',
  apiVersion: 'v1',
  metadata: { name, namespace: 'ns' },
  spec: {
    type: 'NodePort',
    clusterIP: '198.19.0.10',
    clusterIPs: ['198.19.0.10'],
    externalIPs: ['203.0.113.7'],
    ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 }],
    ...spec,
  },
});

/** An API server answering GETs of Services in `ns` from this table (anything else: 404). */
const ANSWERS: Record<string, () => [number, string]> = {
  web: () => [200, JSON.stringify(service('web'))],
  headless: () => [
    200,
    JSON.stringify(service('headless', { type: 'ClusterIP', clusterIP: 'None', clusterIPs: ['None'] })),
  ],
  invalid: () => [200, JSON.stringify(service('invalid', { ports: [{ protocol: 'TCP', port: 99999 }] }))],
  other: () => [200, JSON.stringify(service('web'))],
  huge: () => [200, `{"pad":"${'x'.repeat(MAX_SERVICE_BYTES)}"}`],
  forbidden: () => [403, JSON.stringify({ kind: 'Status', message: 'services "forbidden" is forbidden' })],
  garbage: () => [200, 'not json'],
};

describe('explain: the Service from the API server (backends whose kernel keeps no names)', () => {
  let server: Server;
  let dir: string;
  let kubeconfigPath: string;
  const paths: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      paths.push(req.url ?? '');
      const name = /^\/api\/v1\/namespaces\/ns\/services\/([a-z-]+)$/.exec(req.url ?? '')?.[1];
      const [code, body] = name !== undefined && ANSWERS[name] ? ANSWERS[name]() : [404, '{}'];
      res.writeHead(code, { 'content-type': 'application/json' }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    dir = await mkdtemp(join(tmpdir(), 'kpng-explain-'));
    kubeconfigPath = join(dir, 'kubeconfig');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await writeFile(
      kubeconfigPath,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'u', user: {} }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('converts it as the model does: its addresses and ports', async () => {
    const model = await fetchService({ kubeconfigPath }, { namespace: 'ns', name: 'web' });
    expect(model).toMatchObject({
      namespace: 'ns',
      name: 'web',
      clusterIPs: ['198.19.0.10'],
      externalIPs: ['203.0.113.7'],
      ports: [{ protocol: 'TCP', port: 80, nodePort: 30080 }],
    });
    expect(paths.at(-1)).toBe('/api/v1/namespaces/ns/services/web');
  });

  it.each([
    ['missing', /no Service ns\/missing in the API server/],
    ['headless', /headless or ExternalName/],
    ['invalid', /Service ns\/invalid is invalid/],
    ['other', /answered ns\/web for ns\/other/],
    ['huge', /over 3145728 bytes/],
    ['forbidden', /HTTP 403: services "forbidden" is forbidden/],
    ['garbage', /services\/garbage: .*JSON/],
  ])('%s: a clear error', async (name, message) => {
    await expect(fetchService({ kubeconfigPath }, { namespace: 'ns', name })).rejects.toThrow(message);
  });

  it('kpng explain hands the backend a lookup through --kubeconfig (and --master overrides the server)', async () => {
    const seen: unknown[] = [];
    const looking = defineBackend({
      ...logBackend,
      explain: async (_options, _service, ctx) => {
        seen.push(await ctx.lookupService?.());
        return [];
      },
    });
    const out: string[] = [];
    const stdout = (t: string): void => void out.push(t);
    expect(await runExplain('kpng', looking, ['ns/web', '--kubeconfig', kubeconfigPath], { stdout })).toBe(0);
    expect(seen[0]).toMatchObject({ name: 'web', clusterIPs: ['198.19.0.10'] });
    const err: string[] = [];
    const stderr = (t: string): void => void err.push(t);
    const args = ['ns/web', '--kubeconfig', kubeconfigPath, '--master', 'http://127.0.0.1:1'];
    expect(await runExplain('kpng', looking, args, { stdout, stderr })).toBe(1);
    expect(err.join('')).toMatch(/^kpng explain: .*ECONNREFUSED/);
  });
});
