import fc from 'fast-check';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyHealth } from '../health/proxy-health.js';
import { startHealthServer, type HealthServer } from '../health/health-server.js';
import { ServiceHealthServers } from '../health/service-health.js';
import { aLocalService } from '../../test/support/local-state-fixtures.js';
import { RecordingLogger } from '../sync/recording-logger.js';
import { FakeClock } from '../util/fake-clock.js';
import { createCoreMetrics } from './core-metrics.js';
import { freeLoopbackPort, rawExchange, rawGet } from './raw-http.js';
import { startMetricsServer, type MetricsServer } from './server.js';

/**
 * Property tests of every core HTTP door over real loopback sockets: whatever bytes or hostile
 * requests arrive, the same server instance answers a valid request afterwards, no handler fails
 * (no 500, `handler-error` stays 0) and nothing escapes (vitest fails the run on an uncaught error).
 * Each case's connection is closed by the server or cut by the client after WAIT_MS.
 */

const WAIT_MS = 150;
const BYTE_RUNS = 100;
const REQUEST_RUNS = 200;

interface Door {
  readonly name: string;
  readonly port: number;
  /** A valid request's path and the status it must get. */
  readonly probe: { readonly path: string; readonly status: number };
}

const registry = new Registry();
const metrics = createCoreMetrics(registry, { processMetrics: false });
const refused = metrics.kpng.httpRefusedTotal;
const doors: Door[] = [];
let metricsServer: MetricsServer | undefined;
let healthServer: HealthServer | undefined;
let serviceHealth: ServiceHealthServers | undefined;

beforeAll(async () => {
  const log = new RecordingLogger();
  metricsServer = await startMetricsServer({
    host: '127.0.0.1',
    port: 0,
    registry,
    proxyMode: 'nftables',
    refused,
    log,
  });
  doors.push({ name: 'metrics', port: metricsServer.address.port, probe: { path: '/metrics', status: 200 } });
  const health = new ProxyHealth({ clock: new FakeClock(), syncPeriodMs: 30_000 });
  health.updated('IPv4');
  healthServer = await startHealthServer({ host: '127.0.0.1', port: 0, health, refused, log });
  doors.push({ name: 'healthz', port: healthServer.address()!.port, probe: { path: '/livez', status: 200 } });
  // A health-check node port: a port the metrics server found free a moment ago is reused by closing a probe.
  const port = await freeLoopbackPort();
  serviceHealth = new ServiceHealthServers({ addresses: ['127.0.0.1'], log, refused });
  await serviceHealth.sync(
    [
      aLocalService('web', {
        type: 'LoadBalancer',
        externalPolicyLocal: true,
        healthCheckNodePort: port,
        localReadyEndpoints: 1,
      }),
    ],
    () => true,
  );
  doors.push({ name: 'service-health', port, probe: { path: '/', status: 200 } });
});

afterAll(async () => {
  await metricsServer?.close();
  await healthServer?.close();
  await serviceHealth?.close();
});

async function handlerErrors(): Promise<number> {
  return (await refused.get()).values
    .filter((v) => v.labels.reason === 'handler-error')
    .reduce((sum, v) => sum + v.value, 0);
}

async function stillServes(door: Door): Promise<void> {
  const reply = await rawGet(door.port, door.probe.path);
  expect(reply.status, `${door.name} ${door.probe.path} after the case`).toBe(door.probe.status);
}

const token = fc.stringMatching(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,12}$/);
const method = fc.oneof(
  fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'CONNECT', 'PATCH', 'TRACE', 'PRI'),
  token,
);
const target = fc.oneof(
  fc.constantFrom(
    '/',
    '//',
    '///healthz',
    '/healthz',
    '/livez',
    '/metrics',
    '/./livez',
    '/a/../livez',
    '*',
    '/%',
    '/%zz',
    '/%00',
  ),
  fc.string({ maxLength: 40 }).map((s) => `/${s}`),
  fc.string({ maxLength: 40 }),
  fc.webUrl(),
  fc
    .array(fc.constantFrom('/', '.', '..', '%2F', '%2e', 'healthz', '?', '#', '\\'), { maxLength: 12 })
    .map((p) => p.join('')),
);
const version = fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/0.9', 'HTTP/1.1 ', 'http/1.1', 'HTTP/1', '');
const header = fc.oneof(
  fc.tuple(token, fc.string({ maxLength: 60 })).map(([k, v]) => `${k}: ${v}`),
  fc.constantFrom(
    'Host: x',
    'Host: a b',
    'Host:',
    'Transfer-Encoding: chunked',
    'Transfer-Encoding: gzip, chunked',
    'Content-Length: -1',
    'Content-Length: 5',
    'Content-Length: 99999999999999999999',
    'Connection: Upgrade',
    'Upgrade: websocket',
    'Expect: 100-continue',
    ' folded: line',
  ),
  fc.nat({ max: 40_000 }).map((n) => `X-Big: ${'a'.repeat(n)}`),
);
const eol = fc.constantFrom('\r\n', '\n', '\r');
const request = fc
  .record({
    method,
    target,
    version,
    headers: fc.array(header, { maxLength: 8 }),
    eol,
    end: fc.boolean(),
    body: fc.string({ maxLength: 64 }),
  })
  .map(({ method, target, version, headers, eol, end, body }) => {
    const head = [`${method} ${target} ${version}`.trimEnd(), ...headers].join(eol);
    return end ? `${head}${eol}${eol}${body}` : head;
  });

describe('every core HTTP door, property-based over real sockets', () => {
  it(`keeps answering after arbitrary bytes (${BYTE_RUNS} cases per door)`, async () => {
    for (const door of doors) {
      let cases = 0;
      await fc.assert(
        fc.asyncProperty(fc.uint8Array({ maxLength: 2_048 }), async (bytes) => {
          cases++;
          const reply = await rawExchange(door.port, bytes, { waitMs: WAIT_MS });
          expect(reply.status).not.toBe(500);
          await stillServes(door);
        }),
        { numRuns: BYTE_RUNS },
      );
      console.log(`property arbitrary-bytes on ${door.name}: ${cases} cases`);
    }
    expect(await handlerErrors()).toBe(0);
  }, 300_000);

  it(`answers hostile requests with a status Go would give (${REQUEST_RUNS} cases per door)`, async () => {
    const allowed = new Set([200, 301, 400, 404, 417, 431, 503, 505, undefined]);
    for (const door of doors) {
      let cases = 0;
      await fc.assert(
        fc.asyncProperty(request, fc.integer({ min: 1, max: 4 }), async (text, chunks) => {
          cases++;
          const reply = await rawExchange(door.port, text, { waitMs: WAIT_MS, chunks });
          expect(allowed.has(reply.status), `status ${reply.status} for ${JSON.stringify(text.slice(0, 200))}`).toBe(
            true,
          );
          await stillServes(door);
        }),
        { numRuns: REQUEST_RUNS },
      );
      console.log(`property hostile-requests on ${door.name}: ${cases} cases`);
    }
    expect(await handlerErrors()).toBe(0);
  }, 300_000);

  it('closes an endless header stream early instead of buffering it (431 or closed)', async () => {
    for (const door of doors) {
      const endless = `GET / HTTP/1.1\r\nHost: x\r\nX-Endless: ${'a'.repeat(1_000_000)}`;
      const reply = await rawExchange(door.port, endless, { waitMs: 10_000, chunks: 50 });
      expect(reply.ended).toBe('closed');
      expect(reply.status === 431 || reply.status === undefined).toBe(true);
      await stillServes(door);
    }
  }, 120_000);
});
