import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { rawExchange, rawGet } from '@kpng/core/testing';
import { startMetricsServer, type MetricsServer } from './server.js';

describe('metrics server', () => {
  let server: MetricsServer | undefined;
  afterEach(async () => server?.close());

  it('serves /metrics, an empty 200 /healthz, and 404 elsewhere, on 127.0.0.1', async () => {
    const registry = new Registry();
    new Counter({ name: 'probe_total', help: 'h', registers: [registry] }).inc(3);
    server = await startMetricsServer({ host: '127.0.0.1', port: 0, registry });
    const base = `http://127.0.0.1:${server.port}`;
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    expect(await metrics.text()).toContain('probe_total 3');
    const healthz = await fetch(`${base}/healthz`);
    expect(healthz.status).toBe(200);
    expect(await healthz.text()).toBe('');
    expect((await fetch(`${base}/nope`)).status).toBe(404);
    // Any method, as upstream's DefaultServeMux handlers.
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(200);
  });

  it('answers hostile input as Go would, counts it, and keeps serving', async () => {
    const registry = new Registry();
    server = await startMetricsServer({ host: '127.0.0.1', port: 0, registry });
    const root = await rawGet(server.port, '//');
    expect(root.status).toBe(301);
    expect(root.text).toContain('\r\nLocation: /\r\n');
    expect((await rawExchange(server.port, 'GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n')).status).toBe(400);
    expect((await rawExchange(server.port, '\x00\x01garbage\r\n\r\n')).status).toBe(400);
    const metrics = await rawGet(server.port, '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain('kpng_http_refused_requests_total{server="metrics",reason="bad-request"} 2');
    expect(metrics.body).toContain('# TYPE kpng_unexpected_errors_total counter');
  });
});
