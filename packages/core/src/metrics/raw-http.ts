import { connect, createServer } from 'node:net';

/** What a raw exchange saw: the bytes answered, and how the connection ended. */
export interface RawReply {
  readonly text: string;
  /** The status code of the first response line, if one arrived. */
  readonly status: number | undefined;
  /** `closed`: the server closed (or reset) the connection; `waited`: still open when `waitMs` ran out. */
  readonly ended: 'closed' | 'waited';
}

/**
 * Test helper: sends `bytes` on a fresh TCP connection (in `chunks` pieces, `gapMs` apart, for
 * slow clients), then reads until the server closes the connection or `waitMs` passes. Never
 * rejects: a refused or reset connection is a reply too.
 */
export function rawExchange(
  port: number,
  bytes: Uint8Array | string,
  opts: { host?: string; waitMs?: number; chunks?: number; gapMs?: number } = {},
): Promise<RawReply> {
  const data = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.from(bytes);
  const chunks = Math.max(1, Math.min(opts.chunks ?? 1, data.length || 1));
  return new Promise((resolve) => {
    const socket = connect(port, opts.host ?? '127.0.0.1');
    const received: Buffer[] = [];
    let done = false;
    const finish = (ended: RawReply['ended']) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(received).toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve({ text, status: m ? Number(m[1]) : undefined, ended });
    };
    const timer = setTimeout(() => finish('waited'), opts.waitMs ?? 2_000);
    socket.on('data', (d: Buffer) => received.push(d));
    socket.on('close', () => finish('closed'));
    socket.on('error', () => finish('closed'));
    socket.on('connect', () => {
      const size = Math.ceil(data.length / chunks);
      let i = 0;
      const next = () => {
        if (done || socket.destroyed) return;
        const piece = data.subarray(i * size, (i + 1) * size);
        i++;
        if (piece.length > 0) socket.write(piece);
        if (i < chunks) setTimeout(next, opts.gapMs ?? 0);
      };
      next();
    });
  });
}

/** Test helper: a plain `GET path` on a fresh connection; the status and body. */
export async function rawGet(port: number, path: string, host = '127.0.0.1'): Promise<RawReply & { body: string }> {
  const reply = await rawExchange(port, `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`, {
    host,
    waitMs: 10_000,
  });
  const split = reply.text.indexOf('\r\n\r\n');
  return { ...reply, body: split < 0 ? '' : reply.text.slice(split + 4) };
}

/** Test helper: a loopback port that was free a moment ago (listen on 0, note the port, close). */
export async function freeLoopbackPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * Test data: raw malformed requests every HTTP door of every program is sent in the door e2e tests
 * (`src/cli/doors.e2e.test.ts`, kube-proxy's `test/doors.e2e.test.ts`), and the statuses Go's
 * net/http gives them (400, 431; 301 or 404 for `GET //` by the door's routing).
 */
export const HOSTILE_RAW_REQUESTS: readonly { readonly name: string; readonly raw: string }[] = [
  { name: 'GET //', raw: 'GET // HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' },
  { name: 'garbage bytes (a TLS hello)', raw: '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n' },
  { name: 'a huge header', raw: `GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64_000)}\r\n\r\n` },
  { name: 'a bad escape', raw: 'GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n' },
  { name: 'CONNECT', raw: 'CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n' },
  { name: 'a NUL in the path', raw: 'GET /he\x00althz HTTP/1.1\r\nHost: x\r\n\r\n' },
  {
    name: 'two Content-Lengths',
    raw: 'POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
  },
  { name: 'a bare LF request', raw: 'GET /healthz HTTP/1.1\nHost: x\n\n' },
];

/** The statuses a hostile request may get (none gets a 2xx, a 5xx or no answer at all). */
export const HOSTILE_RAW_STATUSES: readonly number[] = [301, 400, 404, 431];
