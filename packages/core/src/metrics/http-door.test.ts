import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { RecordingLogger } from '../sync/recording-logger.js';
import { closeServer, listen } from './http.js';
import { createHttpDoor, httpRefusals, type DoorHandler, type HttpDoorOptions } from './http-door.js';
import { rawExchange, rawGet } from './raw-http.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await closeServer(s);
});

async function door(extra: Partial<HttpDoorOptions> = {}) {
  const registry = new Registry();
  const refused = httpRefusals(registry);
  const log = new RecordingLogger();
  const server = createHttpDoor({
    name: 'test',
    routes: new Map<string, DoorHandler>([
      ['/healthz', (_req, res) => void res.end('ok')],
      [
        '/throws',
        () => {
          throw new Error('boom');
        },
      ],
      ['/rejects', () => Promise.reject(new Error('async boom'))],
    ]),
    refused,
    log,
    ...extra,
  });
  await listen(server, '127.0.0.1', 0);
  servers.push(server);
  const port = (server.address() as AddressInfo).port;
  const count = async (reason: string) =>
    (await refused.get()).values.find((v) => v.labels.reason === reason && v.labels.server === 'test')?.value ?? 0;
  return { server, port, count, log };
}

describe('createHttpDoor', () => {
  it.each([
    { name: 'an empty path segment pair', raw: 'GET // HTTP/1.1\r\nHost: x\r\n\r\n', status: 404, reason: 'not-found' },
    { name: 'a garbage request line', raw: '\x00\xff\r\n\r\n', status: 400, reason: 'bad-request' },
    { name: 'an unknown method token', raw: 'FROB / HTTP/1.1\r\nHost: x\r\n\r\n', status: 400, reason: 'bad-request' },
    { name: 'a relative target', raw: 'GET healthz HTTP/1.1\r\nHost: x\r\n\r\n', status: 400, reason: 'bad-request' },
    { name: 'a bad percent-escape', raw: 'GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n', status: 400, reason: 'bad-request' },
    { name: 'no Host in HTTP/1.1', raw: 'GET /healthz HTTP/1.1\r\n\r\n', status: 400, reason: 'bad-request' },
    {
      name: 'two Hosts',
      raw: 'GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n',
      status: 400,
      reason: 'bad-request',
    },
    {
      name: 'a malformed Host',
      raw: 'GET /healthz HTTP/1.1\r\nHost: a b<\r\n\r\n',
      status: 400,
      reason: 'bad-request',
    },
    { name: '`*` with GET', raw: 'GET * HTTP/1.1\r\nHost: x\r\n\r\n', status: 400, reason: 'bad-request' },
    { name: 'CONNECT', raw: 'CONNECT a:1 HTTP/1.1\r\nHost: a:1\r\n\r\n', status: 404, reason: 'not-found' },
    {
      name: 'headers over the size limit',
      raw: `GET /healthz HTTP/1.1\r\nHost: x\r\nX: ${'a'.repeat(20_000)}\r\n\r\n`,
      status: 431,
      reason: 'headers-too-large',
    },
    {
      name: 'a handler that throws',
      raw: 'GET /throws HTTP/1.1\r\nHost: x\r\n\r\n',
      status: 500,
      reason: 'handler-error',
    },
    {
      name: 'a handler that rejects',
      raw: 'GET /rejects HTTP/1.1\r\nHost: x\r\n\r\n',
      status: 500,
      reason: 'handler-error',
    },
  ])('answers $name with $status, counted as $reason, and keeps serving', async ({ raw, status, reason }) => {
    const { port, count } = await door();
    const reply = await rawExchange(port, raw);
    expect(reply.status).toBe(status);
    expect(await count(reason)).toBe(1);
    const after = await rawGet(port, '/healthz');
    expect(after.status).toBe(200);
    expect(after.body).toBe('ok');
  });

  it.each([
    { raw: 'GET /heal%74hz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', why: 'a percent-decoded path' },
    { raw: 'POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc', why: 'any method, as upstream' },
    {
      raw: 'GET http://elsewhere/healthz?x=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      why: 'an absolute-form target',
    },
    { raw: 'GET /healthz HTTP/1.0\r\n\r\n', why: 'HTTP/1.0 without Host' },
  ])('serves $why', async ({ raw }) => {
    const { port } = await door();
    const reply = await rawExchange(port, raw);
    expect(reply.status).toBe(200);
    expect(reply.text.endsWith('ok')).toBe(true);
  });

  it("answers 404 with Go's text and headers", async () => {
    const { port } = await door();
    const reply = await rawGet(port, '/nope');
    expect(reply.status).toBe(404);
    expect(reply.body).toBe('404 page not found\n');
    expect(reply.text).toMatch(/X-Content-Type-Options: nosniff/i);
  });

  it('redirects an unclean path to its clean form where upstream uses a ServeMux', async () => {
    const { port } = await door({ paths: 'clean' });
    for (const [path, location] of [
      ['//healthz', '/healthz'],
      ['/a/../healthz?x=%0d', '/healthz?x=%0d'],
      ['//', '/'],
    ] as const) {
      const reply = await rawGet(port, path);
      expect(reply.status).toBe(301);
      expect(reply.text).toContain(`\r\nLocation: ${location}\r\n`);
    }
  });

  it('answers OPTIONS * with 200 as Go does', async () => {
    const { port } = await door();
    expect((await rawExchange(port, 'OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).status).toBe(200);
  });

  it('answers Expect: 100-continue with the final status at once, never 100 Continue (found by the property test)', async () => {
    const { port } = await door();
    const reply = await rawExchange(
      port,
      'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n',
    );
    expect(reply.status).toBe(200);
    expect(reply.text).not.toContain('100 Continue');
    const odd = await rawExchange(
      port,
      'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: x-odd\r\nConnection: close\r\n\r\n',
    );
    expect(odd.status).toBe(417);
  });

  // The deadline is the behaviour: a client that never finishes its headers is cut off (generous bounds).
  it('closes a connection whose headers never complete, counted as timeout', async () => {
    const { port, count } = await door({ limits: { headersTimeoutMs: 300, requestTimeoutMs: 600 } });
    const reply = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ', { waitMs: 20_000 });
    expect(reply.ended).toBe('closed');
    expect(reply.text).toBe('');
    expect(await count('timeout')).toBe(1);
    expect((await rawGet(port, '/healthz')).status).toBe(200);
  });

  it('closes connections over the cap on accept, counted as connection-limit', async () => {
    const { server, port, count } = await door({ limits: { maxConnections: 2 } });
    const held = [0, 1].map(() => rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', { waitMs: 1_500 }));
    await new Promise((r) => setTimeout(r, 200));
    const over = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', { waitMs: 10_000 });
    expect(over.ended).toBe('closed');
    expect(over.status).toBeUndefined();
    expect(await count('connection-limit')).toBe(1);
    await Promise.all(held);
    await connectionsBelow(server, 2);
    expect((await rawGet(port, '/healthz')).status).toBe(200);
  });

  it('counts and logs an accept failure (EMFILE) instead of throwing it', async () => {
    const { server, port, count, log } = await door();
    const emfile = Object.assign(new Error('accept EMFILE'), { code: 'EMFILE', syscall: 'accept' });
    expect(() => server.emit('error', emfile)).not.toThrow();
    expect(await count('accept-error')).toBe(1);
    expect(log.records.some((r) => r.level === 'error' && r.fields?.['code'] === 'EMFILE')).toBe(true);
    expect((await rawGet(port, '/healthz')).status).toBe(200);
  });

  it('logs one line per reason per interval, with the count it suppressed', async () => {
    const { port, count, log } = await door();
    for (let i = 0; i < 5; i++) await rawGet(port, `/nope${i}`);
    expect(await count('not-found')).toBe(5);
    expect(log.records.filter((r) => r.msg === 'http request refused')).toHaveLength(1);
  });
});

/** Waits (bounded) until the server has seen its clients' connections close. */
async function connectionsBelow(server: Server, n: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const open = await new Promise<number>((r) => server.getConnections((_e, c) => r(c)));
    if (open < n) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the server still holds ${n} or more connections`);
}
