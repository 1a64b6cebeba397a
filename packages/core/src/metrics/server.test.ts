import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { RecordingLogger } from '../sync/recording-logger.js';
import { createCoreMetrics } from './core-metrics.js';
import { rawGet } from './raw-http.js';
import { startMetricsServer, type MetricsServer } from './server.js';

let server: MetricsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(extra: Partial<Parameters<typeof startMetricsServer>[0]> = {}) {
  const registry = new Registry();
  const metrics = createCoreMetrics(registry, { processMetrics: false });
  server = await startMetricsServer({
    host: '127.0.0.1',
    port: 0,
    registry,
    proxyMode: 'nftables',
    configz: { 'kubeproxy.config.k8s.io': { mode: 'nftables' } },
    log: new RecordingLogger(),
    refused: metrics.kpng.httpRefusedTotal,
    ...extra,
  });
  const base = `http://127.0.0.1:${server.address.port}`;
  return { metrics, base };
}

describe('startMetricsServer', () => {
  it('serves the registry on /metrics in the Prometheus text format', async () => {
    const { metrics, base } = await start();
    metrics.syncFailed('nft');
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await res.text()).toContain('kpng_sync_failures_total{backend="nft"} 1');
  });

  it('concatenates several registries', async () => {
    const registry = new Registry();
    const other = new Registry();
    new Counter({ name: 'other_things_total', help: 'h', registers: [other] }).inc();
    createCoreMetrics(registry, { processMetrics: false });
    const { base } = await start({ registry: [registry, other, registry] });
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toContain('other_things_total 1');
    expect(text.match(/# TYPE kpng_sync_failures_total /g)).toHaveLength(1);
  });

  it.each([
    { path: '/healthz', status: 200, type: /^text\/plain/, body: 'ok' },
    { path: '/proxyMode', status: 200, type: /^text\/plain/, body: 'nftables' },
    {
      path: '/configz',
      status: 200,
      type: /^application\/json/,
      body: '{"kubeproxy.config.k8s.io":{"mode":"nftables"}}',
    },
    { path: '/nope', status: 404, type: /^text\/plain/, body: '404 page not found\n' },
  ])('GET $path answers $status', async ({ path, status, type, body }) => {
    const { base } = await start();
    const res = await fetch(`${base}${path}`);
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(type);
    expect(await res.text()).toBe(body);
  });

  it('reads a proxy mode function on every request and defaults configz to {}', async () => {
    let mode = 'iptables';
    const registry = new Registry();
    server = await startMetricsServer({
      host: '127.0.0.1',
      port: 0,
      registry,
      proxyMode: () => mode,
      log: new RecordingLogger(),
    });
    const base = `http://127.0.0.1:${server.address.port}`;
    expect(await (await fetch(`${base}/proxyMode`)).text()).toBe('iptables');
    mode = 'nftables';
    expect(await (await fetch(`${base}/proxyMode`)).text()).toBe('nftables');
    expect(await (await fetch(`${base}/configz`)).text()).toBe('{}');
  });

  it('answers any method, as upstream (no handler of its mux checks the method)', async () => {
    const { base } = await start();
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(200);
    expect((await fetch(`${base}/proxyMode`, { method: 'DELETE' })).status).toBe(200);
    expect((await fetch(`${base}/metrics`, { method: 'HEAD' })).status).toBe(200);
  });

  it('answers GET // with 404 (exact paths, no ServeMux redirect), counts it and keeps serving', async () => {
    const { base } = await start();
    const port = Number(new URL(base).port);
    expect((await rawGet(port, '//')).status).toBe(404);
    expect((await rawGet(port, '/metrics')).body).toContain(
      'kpng_http_refused_requests_total{server="metrics",reason="not-found"} 1',
    );
  });

  it('binds where it is told and rejects when the port is taken', async () => {
    const { base } = await start();
    expect(server!.address.address).toBe('127.0.0.1');
    const port = Number(new URL(base).port);
    const registry = new Registry();
    await expect(
      startMetricsServer({ host: '127.0.0.1', port, registry, proxyMode: 'x', log: new RecordingLogger() }),
    ).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});
