import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { DialRequest, DialResult } from './dialer.js';
import { tcpDialer } from './tcp-dialer.js';

// Real sockets, on 127.0.0.1 only.
const servers: Server[] = [];
const sockets = new Set<Socket>();

async function listen(onConnection: (socket: Socket) => void, host = '127.0.0.1'): Promise<number> {
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    onConnection(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}

/** A port nothing listens on: bind one, note it, close it. */
async function closedPort(): Promise<number> {
  const port = await listen(() => {});
  await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
  return port;
}

/** The result without its timestamp, after checking the timestamp is the decision's moment. */
function withoutAt(result: DialResult): Omit<DialResult, 'at'> {
  const { at, ...rest } = result;
  expect(at).toBeGreaterThan(performance.timeOrigin);
  expect(at).toBeLessThanOrEqual(performance.timeOrigin + performance.now());
  return rest;
}

async function dialed(request: DialRequest): Promise<Omit<DialResult, 'at'>> {
  return withoutAt(await tcpDialer.dial(request));
}

afterEach(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

describe('tcpDialer', () => {
  it('succeeds on connect when no reply is needed', async () => {
    const port = await listen(() => {});
    expect(await dialed({ host: '127.0.0.1', port, timeoutMs: 2_000, readReply: false })).toEqual({ ok: true });
  });

  it('an answer already received when the timeout comes due on a busy loop is an answer, not a timeout', async () => {
    // The server answers at once, then holds this (the only) event loop past the 50 ms timeout:
    // when the loop turns again the timer is due and the reply is waiting in the socket.
    const port = await listen((s) => {
      s.write('pod-a 127.0.0.1\n');
      const until = performance.now() + 150;
      while (performance.now() < until); // a long turn (a busy client)
    });
    expect(await dialed({ host: '127.0.0.1', port, timeoutMs: 50, readReply: true })).toEqual({
      ok: true,
      reply: 'pod-a 127.0.0.1',
    });
  });

  it('reads the first line of the reply', async () => {
    const port = await listen((s) => s.end('pod-a 127.0.0.1\nmore\n'));
    expect(await dialed({ host: '127.0.0.1', port, timeoutMs: 2_000, readReply: true })).toEqual({
      ok: true,
      reply: 'pod-a 127.0.0.1',
    });
  });

  it('writes `send` once connected, and reads the answer to it (an HTTP request)', async () => {
    const port = await listen((s) =>
      s.once('data', (d: Buffer) =>
        s.end(d.toString().startsWith('GET / HTTP/1.1\r\n') ? 'HTTP/1.1 200 OK\r\n\r\n' : 'bad\n'),
      ),
    );
    expect(
      await dialed({
        host: '127.0.0.1',
        port,
        timeoutMs: 2_000,
        readReply: true,
        send: 'GET / HTTP/1.1\r\nHost: x\r\n\r\n',
      }),
    ).toEqual({ ok: true, reply: 'HTTP/1.1 200 OK\r' });
  });

  it('takes a reply without a newline when the server closes', async () => {
    const port = await listen((s) => s.end('pod-b'));
    expect(await dialed({ host: '127.0.0.1', port, timeoutMs: 2_000, readReply: true })).toEqual({
      ok: true,
      reply: 'pod-b',
    });
  });

  it('reports refused for a closed port', async () => {
    const port = await closedPort();
    expect(await dialed({ host: '127.0.0.1', port, timeoutMs: 2_000, readReply: false })).toEqual({
      ok: false,
      error: 'refused',
    });
  });

  it('times out when the reply never comes', async () => {
    const port = await listen(() => {});
    expect(await dialed({ host: '127.0.0.1', port, timeoutMs: 100, readReply: true })).toEqual({
      ok: false,
      error: 'timeout',
    });
  });

  it('reports reset when the server closes without a word', async () => {
    const port = await listen((s) => s.end());
    expect(await dialed({ host: '127.0.0.1', port, timeoutMs: 2_000, readReply: true })).toEqual({
      ok: false,
      error: 'reset',
    });
  });

  it('stops at once when aborted', async () => {
    const port = await listen(() => {});
    const stop = new AbortController();
    const dial = tcpDialer.dial({ host: '127.0.0.1', port, timeoutMs: 10_000, readReply: true, signal: stop.signal });
    stop.abort();
    expect(withoutAt(await dial)).toEqual({ ok: false, error: 'aborted' });
  });

  it('dials IPv6 addresses as they are, without brackets', async (ctx) => {
    let port = 0;
    try {
      port = await listen((s) => s.end('v6\n'), '::1');
    } catch {
      ctx.skip('no IPv6 loopback on this host');
    }
    expect(await dialed({ host: '::1', port, timeoutMs: 2_000, readReply: true })).toEqual({ ok: true, reply: 'v6' });
  });
});
