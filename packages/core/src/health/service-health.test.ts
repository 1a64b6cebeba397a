import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalService } from '../nodeview/types.js';
import { RecordingLogger } from '../sync/recording-logger.js';
import { aLocalService, aNodeLocalState } from '../../test/support/local-state-fixtures.js';
import { Registry } from 'prom-client';
import { httpRefusals } from '../metrics/http-door.js';
import { rawExchange, rawGet } from '../metrics/raw-http.js';
import { ServiceHealthServers } from './service-health.js';

/** A port that was free a moment ago: listen on 0, note the port, close. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

function lbLocal(
  name: string,
  port: number,
  localReadyEndpoints: number,
  overrides: Partial<LocalService> = {},
): LocalService {
  return aLocalService(name, {
    type: 'LoadBalancer',
    externalPolicyLocal: true,
    externallyAccessible: true,
    healthCheckNodePort: port,
    localReadyEndpoints,
    ...overrides,
  });
}

async function probe(port: number): Promise<{ status: number; headers: Headers; body: unknown } | 'refused'> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/`);
    return { status: res.status, headers: res.headers, body: await res.json() };
  } catch {
    return 'refused';
  }
}

let servers: ServiceHealthServers | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await servers?.close();
  servers = undefined;
  for (const c of cleanups.splice(0)) await c();
});

/** A loopback port another server holds until `release()` (or the test's end). */
async function occupiedPort(): Promise<{ port: number; release: () => Promise<void> }> {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const release = () =>
    new Promise<void>((resolve) => (blocker.listening ? blocker.close(() => resolve()) : resolve()));
  cleanups.push(release);
  return { port: (blocker.address() as { port: number }).port, release };
}

function newServers(log = new RecordingLogger()) {
  return (servers = new ServiceHealthServers({ addresses: ['127.0.0.1'], log }));
}

describe('ServiceHealthServers', () => {
  it.each([
    { name: 'local ready endpoints and a healthy proxy', endpoints: 2, proxy: true, status: 200 },
    { name: 'no local ready endpoints', endpoints: 0, proxy: true, status: 503 },
    { name: 'an unhealthy proxy', endpoints: 2, proxy: false, status: 503 },
  ])('answers $status with $name', async ({ endpoints, proxy, status }) => {
    const port = await freePort();
    await newServers().sync([lbLocal('web', port, endpoints)], () => proxy);
    const reply = await probe(port);
    expect(reply).not.toBe('refused');
    if (reply === 'refused') return;
    expect(reply.status).toBe(status);
    expect(reply.headers.get('content-type')).toBe('application/json');
    expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
    expect(reply.body).toEqual({
      service: { namespace: 'default', name: 'web' },
      localEndpoints: endpoints,
      serviceProxyHealthy: proxy,
    });
  });

  it('answers every path (GET // too) with the health, as upstream, and survives garbage', async () => {
    const port = await freePort();
    const registry = new Registry();
    const refused = httpRefusals(registry);
    servers = new ServiceHealthServers({ addresses: ['127.0.0.1'], log: new RecordingLogger(), refused });
    await servers.sync([lbLocal('web', port, 1)], () => true);
    const slash = await rawGet(port, '//');
    expect(slash.status).toBe(200);
    expect(JSON.parse(slash.body)).toMatchObject({ localEndpoints: 1 });
    expect((await rawExchange(port, '\x16\x03\x01\x00\xa5\x01\r\n\r\n')).status).toBe(400);
    expect((await refused.get()).values).toContainEqual({
      labels: { server: 'service-health', reason: 'bad-request' },
      value: 1,
    });
    expect(await probe(port)).toMatchObject({ status: 200 });
  });

  it('serves only Services with a health-check port and a Local external policy', async () => {
    const [a, b] = [await freePort(), await freePort()];
    const s = newServers();
    await s.sync(
      [
        lbLocal('wanted', a, 1),
        lbLocal('cluster-policy', b, 1, { externalPolicyLocal: false }),
        lbLocal('no-port', 0, 1),
      ],
      () => true,
    );
    expect([...s.listening()]).toEqual([['default/wanted', a]]);
    expect(await probe(b)).toBe('refused');
  });

  it('updates counts in place, closes removed Services and moves changed ports', async () => {
    const [p1, p2, p3] = [await freePort(), await freePort(), await freePort()];
    const s = newServers();
    let healthy = true;
    await s.sync([lbLocal('a', p1, 0), lbLocal('b', p2, 1)], () => healthy);
    expect(await probe(p1)).toMatchObject({ status: 503 });

    await s.sync([lbLocal('a', p1, 3), lbLocal('b', p2, 1)], () => healthy);
    expect(await probe(p1)).toMatchObject({ status: 200, body: { localEndpoints: 3 } });
    healthy = false;
    expect(await probe(p1)).toMatchObject({ status: 503, body: { serviceProxyHealthy: false } });

    await s.sync([lbLocal('b', p3, 1)], () => true);
    expect(await probe(p1)).toBe('refused');
    expect(await probe(p2)).toBe('refused');
    expect(await probe(p3)).toMatchObject({ status: 200, body: { service: { name: 'b' } } });
    expect([...s.listening()]).toEqual([['default/b', p3]]);
  });

  it('logs a port it cannot open and opens it at a later sync', async () => {
    const { port, release } = await occupiedPort();
    const log = new RecordingLogger();
    const s = newServers(log);
    const other = await freePort();

    await s.sync([lbLocal('busy', port, 1), lbLocal('fine', other, 1)], () => true);
    expect(log.at('error')).toHaveLength(1);
    expect(log.at('error')[0]!.fields).toMatchObject({ service: 'default/busy', port });
    expect([...s.listening().keys()]).toEqual(['default/fine']);

    await release();
    await s.sync([lbLocal('busy', port, 1), lbLocal('fine', other, 1)], () => true);
    expect(await probe(port)).toMatchObject({ status: 200 });
  });

  describe('after a partial sync (only the changed Services named)', () => {
    const key = (name: string) => `default/${name}` as LocalService['key'];
    it.each([
      {
        name: 'a count changes in place',
        from: [
          ['a', 0],
          ['b', 1],
        ],
        to: [
          ['a', 3],
          ['b', 1],
        ],
        changed: ['a'],
      },
      {
        name: 'a Service is removed',
        from: [
          ['a', 1],
          ['b', 1],
        ],
        to: [['b', 1]],
        changed: ['a'],
      },
      { name: 'a Service is removed and added back', from: [['a', 1]], to: [], changed: ['a'], then: [['a', 2]] },
      {
        name: 'a Service is added',
        from: [['b', 1]],
        to: [
          ['a', 2],
          ['b', 1],
        ],
        changed: ['a'],
      },
    ] as {
      name: string;
      from: [string, number][];
      to: [string, number][];
      changed: string[];
      then?: [string, number][];
    }[])('$name: serves what a full reconcile serves', async ({ from, to, changed, then }) => {
      const ports = new Map<string, number>();
      for (const name of ['a', 'b']) ports.set(name, await freePort());
      const state = (services: [string, number][]) =>
        services.map(([name, endpoints]) => lbLocal(name, ports.get(name)!, endpoints));
      const s = newServers();
      await s.sync(state(from), () => true, undefined, new Set()); // a first call reconciles everything
      expect([...s.listening().keys()].sort()).toEqual(from.map(([name]) => key(name)));
      const steps = then === undefined ? [to] : [to, then];
      for (const step of steps) {
        await s.sync(state(step), () => true, undefined, new Set(changed.map(key)));
        expect([...s.listening()].sort()).toEqual(step.map(([name]) => [key(name), ports.get(name)]));
        for (const [name, endpoints] of step)
          expect(await probe(ports.get(name)!)).toMatchObject({
            status: endpoints > 0 ? 200 : 503,
            body: { localEndpoints: endpoints },
          });
      }
    });

    it('looks only at the named Services, plus any port that failed to open', async () => {
      const { port: busy, release } = await occupiedPort();
      const [pa, pb] = [await freePort(), await freePort()];
      const s = newServers(new RecordingLogger());
      await s.sync([lbLocal('a', pa, 1), lbLocal('b', pb, 1), lbLocal('busy', busy, 1)], () => true);
      expect([...s.listening().keys()].sort()).toEqual([key('a'), key('b')]);
      await release();
      // b's count moved but only a is named: b keeps what it had; the failed port opens now.
      await s.sync(
        [lbLocal('a', pa, 2), lbLocal('b', pb, 5), lbLocal('busy', busy, 1)],
        () => true,
        undefined,
        new Set([key('a')]),
      );
      expect(await probe(pa)).toMatchObject({ body: { localEndpoints: 2 } });
      expect(await probe(pb)).toMatchObject({ body: { localEndpoints: 1 } });
      expect(await probe(busy)).toMatchObject({ status: 200 });
      // A full reconcile (nothing named) catches up.
      await s.sync([lbLocal('a', pa, 2), lbLocal('b', pb, 5), lbLocal('busy', busy, 1)], () => true);
      expect(await probe(pb)).toMatchObject({ body: { localEndpoints: 5 } });
    });
  });

  it('closes every listener on close', async () => {
    const port = await freePort();
    const s = newServers();
    await s.sync([lbLocal('a', port, 1)], () => true);
    await s.close();
    expect(await probe(port)).toBe('refused');
    expect(s.listening().size).toBe(0);
  });
});

describe('ServiceHealthServers on the addresses nodePortAddresses selects', () => {
  it('listens only once the node is known, on its selected address, and moves when that changes', async () => {
    const port = await freePort();
    const base = aNodeLocalState().node;
    servers = new ServiceHealthServers({
      addresses: (node) => node.addresses.filter((a) => a.startsWith('127.')),
      log: new RecordingLogger(),
    });
    const svc = [lbLocal('web', port, 1)];
    await servers.sync(svc, () => true, { ...base, addresses: [] });
    expect(await probe(port)).toBe('refused');
    await servers.sync(svc, () => true, { ...base, addresses: ['198.18.0.10', '127.0.0.1'] });
    expect(await probe(port)).toMatchObject({ status: 200 });
    await servers.sync(svc, () => true, { ...base, addresses: ['198.18.0.10'] });
    expect(await probe(port)).toBe('refused');
  });
});
