import { createServer } from 'node:net';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { FakeApiServer, kubeconfigYaml } from '@kpng/lab';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerRestClientMetrics } from '../../metrics/rest-client.js';
import { systemClock } from '../../util/clock.js';
import { instrumentKubeConfig } from './instrumented-kubeconfig.js';
import { ApiStatusError, listRaw } from './requests.js';
import { node } from './testdata/objects.js';

function kubeConfigFor(url: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfigYaml(url));
  return kc;
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('instrumentKubeConfig', () => {
  let server: FakeApiServer;
  beforeAll(async () => {
    server = await FakeApiServer.start();
    server.create({
      ...node('node-a'),
      metadata: { ...node('node-a').metadata, managedFields: [{ manager: 'kubelet' }] },
    });
  });
  afterAll(() => server.close());

  function instrumented(url = server.url) {
    const registry = new Registry();
    const kc = instrumentKubeConfig(kubeConfigFor(url), registerRestClientMetrics(registry), systemClock);
    return { kc, registry };
  }

  it('measures raw lists, with real status codes, and trims managedFields', async () => {
    const { kc, registry } = instrumented();
    const list = await listRaw(
      kc,
      { path: '/api/v1/nodes', fieldSelector: 'metadata.name=node-a' },
      AbortSignal.timeout(5_000),
    );
    expect(list.items.map((n) => n.metadata?.name)).toEqual(['node-a']);
    expect(list.items[0]?.metadata).not.toHaveProperty('managedFields');
    server.failNext('/api/v1/nodes', 503);
    const failure = await listRaw(kc, { path: '/api/v1/nodes' }, AbortSignal.timeout(5_000)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiStatusError);
    expect(failure).toMatchObject({ statusCode: 503 });

    const text = await registry.metrics();
    const host = new URL(server.url).host;
    expect(text).toContain(`rest_client_requests_total{code="200",method="GET",host="${host}"} 1`);
    expect(text).toContain(`rest_client_requests_total{code="503",method="GET",host="${host}"} 1`);
    expect(text).toContain(`rest_client_request_duration_seconds_count{verb="GET",host="${host}"} 2`);
  });

  it('measures calls made through the generated API clients', async () => {
    const { kc, registry } = instrumented();
    const found = await kc.makeApiClient(CoreV1Api).readNode({ name: 'node-a' });
    expect(found.metadata?.name).toBe('node-a');
    expect(await registry.metrics()).toContain(
      `rest_client_request_duration_seconds_count{verb="GET",host="${new URL(server.url).host}"} 1`,
    );
  });

  it('counts a request that got no response as <error>', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const { kc, registry } = instrumented(url);
    await expect(listRaw(kc, { path: '/api/v1/services' }, AbortSignal.timeout(5_000))).rejects.toThrow();
    expect(await registry.metrics()).toContain(
      `rest_client_requests_total{code="<error>",method="GET",host="${new URL(url).host}"} 1`,
    );
  });

  it('keeps the source kubeconfig untouched', async () => {
    const plain = kubeConfigFor(server.url);
    const registry = new Registry();
    instrumentKubeConfig(plain, registerRestClientMetrics(registry), systemClock);
    await listRaw(plain, { path: '/api/v1/nodes' }, AbortSignal.timeout(5_000));
    expect(await registry.metrics()).not.toContain('rest_client_requests_total{');
  });
});
