import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock, type Clock } from '../util/clock.js';
import { toError } from '../util/errors.js';
import { log as defaultLog, type Logger } from '../util/log.js';
import { closeServer, listen, send } from '../metrics/http.js';
import { createHttpDoor, type DoorLimits, type RefusalCounter } from '../metrics/http-door.js';
import type { HealthReply, ProxyHealth } from './proxy-health.js';

export interface HealthServerOptions {
  /** Default 0.0.0.0 (kube-proxy's `healthzBindAddress`). */
  readonly host?: string;
  /** Default 10256; 0 picks a free port. */
  readonly port?: number;
  readonly health: ProxyHealth;
  /** Drives the restart delay. */
  readonly clock?: Clock;
  /** Delay before listening again after the server failed. Default 5000 (upstream's 5 s). */
  readonly restartDelayMs?: number;
  /** Reject instead of retrying when the first listen fails (kube-proxy's `bindAddressHardFail`). */
  readonly hardFail?: boolean;
  readonly log?: Logger;
  /** Counts refused requests (`kpng_http_refused_requests_total`, server="healthz"). */
  readonly refused?: RefusalCounter;
  readonly limits?: Partial<DoorLimits>;
}

export interface HealthServer {
  /** Where it listens now; undefined while waiting to restart. */
  address(): AddressInfo | undefined;
  close(): Promise<void>;
}

const JSON_HEADERS = { 'X-Content-Type-Options': 'nosniff' };

/**
 * The node health server: `/healthz` (freshness and node eligibility) and `/livez` (freshness).
 * A failure to listen, or a server error later on, is logged and the server is started again
 * after `restartDelayMs`, as upstream's `wait.Until` loop does: health must come back by itself.
 */
export async function startHealthServer(opts: HealthServerOptions): Promise<HealthServer> {
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? defaultLog;
  const host = opts.host ?? '0.0.0.0';
  const port = opts.port ?? 10256;
  const restartDelayMs = opts.restartDelayMs ?? 5000;
  let server: Server | undefined;
  let restartTimer: { cancel(): void } | undefined;
  let closed = false;

  const answer =
    (reply: () => HealthReply) =>
    (_req: unknown, res: Parameters<typeof send>[0]): void => {
      const { status, body } = reply();
      send(res, status, 'application/json', body, JSON_HEADERS);
    };
  // Upstream's http.ServeMux: any method, unclean paths redirected, 404 elsewhere.
  const routes = new Map([
    ['/healthz', answer(() => opts.health.healthz())],
    ['/livez', answer(() => opts.health.livez())],
  ]);

  const scheduleRestart = (err: Error) => {
    log.error('health server failed; restarting', { address: `${host}:${port}`, err, retryInMs: restartDelayMs });
    const failed = server;
    server = undefined;
    if (failed) void closeServer(failed);
    if (closed) return;
    restartTimer = clock.setTimeout(() => {
      attempt().catch((e: unknown) => scheduleRestart(toError(e)));
    }, restartDelayMs);
  };

  const attempt = async (): Promise<void> => {
    restartTimer = undefined;
    const candidate = createHttpDoor({
      name: 'healthz',
      routes,
      paths: 'clean',
      log,
      ...(opts.refused ? { refused: opts.refused } : {}),
      ...(opts.limits ? { limits: opts.limits } : {}),
    });
    await listen(candidate, host, port);
    if (closed) return closeServer(candidate);
    server = candidate;
    // A failed accept (EMFILE...) is the door's to count; the server keeps listening, as Go's Serve does.
    candidate.on('error', (e: NodeJS.ErrnoException) => {
      if (server === candidate && e.syscall !== 'accept') scheduleRestart(e);
    });
    const address = candidate.address() as AddressInfo;
    log.info('health server listening', { address: `${address.address}:${address.port}` });
  };

  try {
    await attempt();
  } catch (e) {
    if (opts.hardFail) throw e;
    scheduleRestart(toError(e));
  }
  return {
    address: () => (server?.address() as AddressInfo | null) ?? undefined,
    close: async () => {
      closed = true;
      restartTimer?.cancel();
      if (server) await closeServer(server);
      server = undefined;
    },
  };
}
