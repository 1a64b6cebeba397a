import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RecordingLogger } from '../sync/recording-logger.js';
import { FakeClock } from '../util/fake-clock.js';
import { rawGet } from '../metrics/raw-http.js';
import { startHealthServer, type HealthServer } from './health-server.js';
import { ProxyHealth } from './proxy-health.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(
  health: ProxyHealth,
  extra: { port?: number; clock?: FakeClock; log?: RecordingLogger; hardFail?: boolean } = {},
) {
  const server: HealthServer = await startHealthServer({
    host: '127.0.0.1',
    port: extra.port ?? 0,
    health,
    log: extra.log ?? new RecordingLogger(),
    ...(extra.clock ? { clock: extra.clock } : {}),
    ...(extra.hardFail !== undefined ? { hardFail: extra.hardFail } : {}),
  });
  cleanups.push(() => server.close());
  return server;
}

/** Occupies a port on 127.0.0.1 so a server cannot bind it. */
async function occupyPort(): Promise<{ port: number; release(): Promise<void> }> {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as { port: number }).port;
  let released = false;
  const release = () =>
    released ? Promise.resolve() : new Promise<void>((resolve) => blocker.close(() => ((released = true), resolve())));
  cleanups.push(release);
  return { port, release };
}

describe('startHealthServer', () => {
  it.each([
    {
      path: '/healthz',
      eligible: true,
      status: 200,
      keys: ['currentTime', 'healthy', 'lastUpdated', 'nodeEligible', 'status'],
    },
    {
      path: '/healthz',
      eligible: false,
      status: 503,
      keys: ['currentTime', 'healthy', 'lastUpdated', 'nodeEligible', 'status'],
    },
    { path: '/livez', eligible: false, status: 200, keys: ['currentTime', 'healthy', 'lastUpdated', 'status'] },
  ])('GET $path with nodeEligible=$eligible answers $status', async ({ path, eligible, status, keys }) => {
    const clock = new FakeClock();
    const health = new ProxyHealth({ clock, syncPeriodMs: 30_000 });
    health.updated('IPv4');
    health.nodeEligible = eligible;
    const server = await start(health);
    const res = await fetch(`http://127.0.0.1:${server.address()!.port}${path}`);
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Object.keys((await res.json()) as object).sort()).toEqual(keys);
  });

  it('answers 503 once an update is stale, and 404 on other paths', async () => {
    const clock = new FakeClock();
    const health = new ProxyHealth({ clock, syncPeriodMs: 30_000 });
    const server = await start(health);
    const base = `http://127.0.0.1:${server.address()!.port}`;
    health.nodeEligible = true;
    health.updated('IPv4');
    health.queuedUpdate('IPv4');
    clock.advance(60_000);
    expect((await fetch(`${base}/healthz`)).status).toBe(503);
    expect((await fetch(`${base}/livez`)).status).toBe(503);
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
  });

  it('redirects GET // and //healthz as a Go ServeMux does, and keeps serving', async () => {
    const health = new ProxyHealth({ clock: new FakeClock(), syncPeriodMs: 30_000 });
    health.updated('IPv4');
    const server = await start(health);
    const port = server.address()!.port;
    const root = await rawGet(port, '//');
    expect(root.status).toBe(301);
    expect(root.text).toContain('\r\nLocation: /\r\n');
    expect((await rawGet(port, '//healthz')).text).toContain('\r\nLocation: /healthz\r\n');
    expect((await rawGet(port, '/')).status).toBe(404);
    expect((await rawGet(port, '/livez')).status).toBe(200);
  });

  it('retries listening every restart delay until the address is free', async () => {
    const clock = new FakeClock();
    const log = new RecordingLogger();
    const blocked = await occupyPort();
    const server = await start(new ProxyHealth({ clock, syncPeriodMs: 30_000 }), { port: blocked.port, clock, log });
    expect(server.address()).toBeUndefined();
    expect(log.at('error')).toHaveLength(1);

    await clock.tick(5_000); // still blocked: a second failure
    expect(await waitFor(() => log.at('error').length === 2)).toBe(true);
    expect(server.address()).toBeUndefined();

    await blocked.release();
    await clock.tick(4_999);
    expect(server.address()).toBeUndefined();
    await clock.tick(1);
    expect(await waitFor(() => server.address() !== undefined)).toBe(true);
    const res = await fetch(`http://127.0.0.1:${blocked.port}/livez`);
    expect(res.status).toBe(200);
  });

  it('rejects at once with hardFail', async () => {
    const blocked = await occupyPort();
    const health = new ProxyHealth({ clock: new FakeClock(), syncPeriodMs: 30_000 });
    await expect(start(health, { port: blocked.port, hardFail: true })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });

  it('does not restart after close', async () => {
    const clock = new FakeClock();
    const blocked = await occupyPort();
    const server = await start(new ProxyHealth({ clock, syncPeriodMs: 30_000 }), { port: blocked.port, clock });
    await server.close();
    expect(clock.pendingTimers()).toBe(0);
  });
});

/** Polls a condition across event-loop turns (listening involves real I/O); bounded to 200 turns. */
async function waitFor(condition: () => boolean): Promise<boolean> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setImmediate(r));
  return condition();
}
