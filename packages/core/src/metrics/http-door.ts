import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Counter, type Registry } from 'prom-client';
import { metricsOn } from '@kpng/kit';
import { cleanPath, locationOf, parseRequestTarget } from './request-target.js';

/**
 * One way every kpng HTTP server (metrics, node health, health-check node ports, the test clients'
 * metrics) meets its clients: whatever bytes arrive, the server answers as Go's net/http would
 * (400, 404, 431, 301 for an unclean path where upstream uses a ServeMux), never lets a handler's
 * exception out (500), bounds what a client can hold (header and request timeouts, a connection
 * cap, keep-alive limits, header size) and keeps an `'error'` listener for its whole life.
 * Every refusal is counted by `server` and `reason`. docs/hostile-input.md lists what each door answers.
 */

/** Why a request or connection was refused (the `reason` label). */
export type RefusalReason =
  | 'bad-request' // unparsable request line, header or target; missing, repeated or malformed Host (400)
  | 'headers-too-large' // request line and headers over the size limit (431)
  | 'timeout' // headers or request not complete in time: closed without an answer, as Go does
  | 'connection-limit' // over maxConnections: closed on accept
  | 'not-found' // no such path (404)
  | 'handler-error' // the handler threw or rejected (500)
  | 'accept-error'; // the server's accept failed (EMFILE, ENFILE...): the connection was never served

export interface RefusalCounter {
  inc(labels: { server: string; reason: RefusalReason }): void;
}

/** What a door logs: rare events, and refusals at most once per reason every LOG_EVERY_MS. */
export interface DoorLog {
  warn(msg: string, fields?: Readonly<Record<string, unknown>>): void;
  error(msg: string, fields?: Readonly<Record<string, unknown>>): void;
}

export type DoorHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface DoorLimits {
  /** Open connections at once; more are closed on accept (counted `connection-limit`). */
  readonly maxConnections: number;
  /** Time for the request line and headers to arrive (slowloris). */
  readonly headersTimeoutMs: number;
  /** Time for the whole request to arrive. */
  readonly requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveTimeoutMs: number;
  /** Requests served on one connection before it is closed. */
  readonly maxRequestsPerSocket: number;
  /** Request line plus headers, in bytes (Go's limit is 1 MiB; Node's default 16 KiB is kept). */
  readonly maxHeaderSize: number;
}

export const DOOR_LIMITS: DoorLimits = {
  maxConnections: 512,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxRequestsPerSocket: 1_000,
  maxHeaderSize: 16_384,
};

export interface HttpDoorOptions {
  /** The `server` label of the refusal counter and the logs (e.g. `metrics`, `healthz`). */
  readonly name: string;
  /**
   * Exact paths (percent-decoded) to their handlers, any method (upstream's handlers check none);
   * other paths answer 404. A single handler serves every path (a health-check node port, as upstream).
   */
  readonly routes: ReadonlyMap<string, DoorHandler> | DoorHandler;
  /**
   * `exact`: the path is looked up as it is (upstream's PathRecorderMux, the metrics server);
   * `clean`: as Go's ServeMux, a path with `//`, `.` or `..` is redirected (301) to its clean form.
   */
  readonly paths?: 'exact' | 'clean';
  readonly refused?: RefusalCounter;
  readonly log?: DoorLog;
  readonly limits?: Partial<DoorLimits>;
}

const LOG_EVERY_MS = 10_000;
/** How long an answered bad request's connection may linger half-closed (Go's closeWriteAndWait waits 500 ms). */
const LINGER_MS = 500;
const TEXT = 'text/plain; charset=utf-8';
const NOT_FOUND = '404 page not found\n';

/** `kpng_http_refused_requests_total{server,reason}` on `registry` (the one already there, if any). */
export function httpRefusals(registry: Registry): Counter<'server' | 'reason'> {
  return metricsOn(registry)(Counter, {
    name: 'kpng_http_refused_requests_total',
    help: 'HTTP requests and connections a kpng server refused, by server and reason (bad-request, headers-too-large, timeout, connection-limit, not-found, handler-error, accept-error)',
    labelNames: ['server', 'reason'] as const,
  });
}

/** An http.Server with the door's behaviour; listen with `listen()` from `./http.js`. */
export function createHttpDoor(opts: HttpDoorOptions): Server {
  const limits = { ...DOOR_LIMITS, ...opts.limits };
  const lastLogged = new Map<RefusalReason, { at: number; suppressed: number }>();
  const refuse = (reason: RefusalReason, detail?: Readonly<Record<string, unknown>>) => {
    opts.refused?.inc({ server: opts.name, reason });
    const now = Date.now();
    const last = lastLogged.get(reason);
    if (last && now - last.at < LOG_EVERY_MS) {
      last.suppressed++;
      return;
    }
    lastLogged.set(reason, { at: now, suppressed: 0 });
    const fields = {
      server: opts.name,
      reason,
      ...detail,
      ...(last?.suppressed ? { suppressed: last.suppressed } : {}),
    };
    if (reason === 'handler-error' || reason === 'accept-error') opts.log?.error('http request refused', fields);
    else opts.log?.warn('http request refused', fields);
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const failed = (e: unknown) => {
      refuse('handler-error', { path: req.url, err: e instanceof Error ? e.message : String(e) });
      if (!res.headersSent) plain(res, 500, 'Internal Server Error', '500 Internal Server Error\n');
      else res.destroy();
    };
    try {
      const pending = serve(req, res, opts, refuse);
      if (pending) pending.catch(failed);
    } catch (e) {
      failed(e);
    }
  };

  const server = createServer(
    {
      maxHeaderSize: limits.maxHeaderSize,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
      requireHostHeader: false, // checked below, to answer and count as Go does
    },
    handle,
  );
  // `Expect: 100-continue`: no door reads a body, so none asks for it: answered at once with the
  // final status, as Go's net/http does when the handler leaves the body unread (Node would send
  // `100 Continue` first). Other expectations get Node's 417, as Go's.
  server.on('checkContinue', handle);
  server.maxConnections = limits.maxConnections;
  server.maxRequestsPerSocket = limits.maxRequestsPerSocket;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    const code = err.code ?? '';
    if (code === 'ECONNRESET' || code === 'EPIPE' || !socket.writable) return void socket.destroy();
    if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      refuse('timeout');
      return void socket.destroy();
    }
    const tooLarge = code === 'HPE_HEADER_OVERFLOW';
    refuse(tooLarge ? 'headers-too-large' : 'bad-request', { code });
    const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
    lingerClosed(socket, `HTTP/1.1 ${status}\r\nContent-Type: ${TEXT}\r\nConnection: close\r\n\r\n${status}`);
  });
  // CONNECT has no route on any door: Go's muxes answer 404 (Node would drop the connection silently).
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    refuse('not-found', { method: 'CONNECT' });
    lingerClosed(
      socket,
      `HTTP/1.1 404 Not Found\r\nContent-Type: ${TEXT}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\nContent-Length: ${NOT_FOUND.length}\r\n\r\n${NOT_FOUND}`,
    );
  });
  server.on('drop', () => refuse('connection-limit'));
  // For the server's whole life: a failed accept (EMFILE...) is counted and logged, never uncaught.
  // Listen errors (EADDRINUSE...) are the caller's, through `listen()`.
  server.on('error', (err: NodeJS.ErrnoException) => {
    if (err.syscall === 'accept') refuse('accept-error', { code: err.code, err: err.message });
  });
  return server;
}

function serve(
  req: IncomingMessage,
  res: ServerResponse,
  opts: HttpDoorOptions,
  refuse: (reason: RefusalReason, detail?: Readonly<Record<string, unknown>>) => void,
): void | Promise<void> {
  // A request with a body nobody reads: answer, then close rather than drain it (Go closes past 256 KiB).
  if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) {
    if (req.headers['content-length'] !== '0') res.shouldKeepAlive = false;
  }
  const hostProblem = checkHost(req);
  if (hostProblem) {
    refuse('bad-request', { problem: hostProblem });
    return badRequest(res, hostProblem);
  }
  const target = parseRequestTarget(req.url ?? '');
  if (target.kind === 'invalid') {
    refuse('bad-request', { problem: 'invalid request target' });
    return badRequest(res);
  }
  if (target.kind === 'asterisk') {
    // Go: `OPTIONS *` is answered by the server itself; `*` with any other method is a bad request.
    if (req.method === 'OPTIONS') return void res.writeHead(200, { 'Content-Length': 0 }).end();
    refuse('bad-request', { problem: 'asterisk target' });
    return badRequest(res);
  }
  if (typeof opts.routes === 'function') return opts.routes(req, res);
  if (opts.paths === 'clean') {
    const clean = cleanPath(target.path);
    if (clean !== target.path) {
      const location = locationOf(clean, target.query);
      const body =
        req.method === 'GET' || req.method === 'HEAD' ? `<a href="${location}">Moved Permanently</a>.\n\n` : '';
      res.writeHead(301, {
        Location: location,
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Length': body.length,
      });
      return void res.end(body);
    }
  }
  const handler = opts.routes.get(target.path);
  if (!handler) {
    refuse('not-found');
    return void plain(res, 404, 'Not Found', NOT_FOUND);
  }
  return handler(req, res);
}

const VALID_HOST = /^[A-Za-z0-9!$%&'()*+,\-.:;=[\]_~]*$/;

/** Go's checks (net/http readRequest): HTTP/1.1 needs exactly one Host header, of valid characters. */
function checkHost(req: IncomingMessage): string | undefined {
  const hosts = req.headersDistinct['host'];
  if (hosts === undefined) {
    const atLeast11 = req.httpVersionMajor > 1 || (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1);
    return atLeast11 ? 'missing required Host header' : undefined;
  }
  if (hosts.length > 1) return 'too many Host headers';
  return VALID_HOST.test(hosts[0] ?? '') ? undefined : 'malformed Host header';
}

function badRequest(res: ServerResponse, why?: string): void {
  const status = why ? `Bad Request: ${why}` : 'Bad Request';
  res.shouldKeepAlive = false;
  plain(res, 400, status, `400 ${status}`);
}

function plain(res: ServerResponse, status: number, reason: string, body: string): void {
  res.writeHead(status, reason, {
    'Content-Type': TEXT,
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** Writes `response`, half-closes, discards what the client still sends, and closes after LINGER_MS. */
function lingerClosed(socket: Socket, response: string): void {
  socket.on('error', () => socket.destroy());
  socket.end(response);
  socket.resume();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}
