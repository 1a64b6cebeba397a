import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
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
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
  });
});
