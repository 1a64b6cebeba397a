import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { log as defaultLog, type Logger } from '../util/log.js';
import { closeServer, listen, send } from './http.js';
import { createHttpDoor, type DoorLimits, type RefusalCounter } from './http-door.js';

export interface MetricsServerOptions {
  /** Default 127.0.0.1 (kube-proxy's `metricsBindAddress`). */
  readonly host?: string;
  /** Default 10249; 0 picks a free port. */
  readonly port?: number;
  /**
   * What `/metrics` exposes. Several registries are concatenated (e.g. core's registry and
   * prom-client's default one, where some modules register); their metric names must not overlap.
   */
  readonly registry: Registry | readonly Registry[];
  /** The active mode for `/proxyMode` (e.g. "nftables"); a function is read on every request. */
  readonly proxyMode: string | (() => string);
  /** The component configuration served as JSON on `/configz`. */
  readonly configz?: unknown;
  readonly log?: Logger;
  /** Counts refused requests (`kpng_http_refused_requests_total`, server="metrics"). */
  readonly refused?: RefusalCounter;
  readonly limits?: Partial<DoorLimits>;
}

export interface MetricsServer {
  readonly address: AddressInfo;
  close(): Promise<void>;
}

type Handler = (res: ServerResponse) => Promise<void> | void;

/**
 * kube-proxy's status server (observability doc section 7): metrics, generic health, mode and config.
 * Any method, exact paths, 404 elsewhere, as upstream's PathRecorderMux; hostile input as every door.
 */
export async function startMetricsServer(opts: MetricsServerOptions): Promise<MetricsServer> {
  const log = opts.log ?? defaultLog;
  const registries = [...new Set(Array.isArray(opts.registry) ? opts.registry : [opts.registry as Registry])];
  const routes = new Map<string, Handler>([
    ['/metrics', (res) => serveMetrics(res, registries)],
    ['/healthz', (res) => send(res, 200, 'text/plain; charset=utf-8', 'ok')],
    ['/proxyMode', (res) => send(res, 200, 'text/plain; charset=utf-8', modeOf(opts.proxyMode))],
    ['/configz', (res) => send(res, 200, 'application/json', JSON.stringify(opts.configz ?? {}))],
  ]);

  const server = createHttpDoor({
    name: 'metrics',
    routes: new Map([...routes].map(([path, route]) => [path, (_req, res) => route(res)])),
    paths: 'exact',
    log,
    ...(opts.refused ? { refused: opts.refused } : {}),
    ...(opts.limits ? { limits: opts.limits } : {}),
  });
  await listen(server, opts.host ?? '127.0.0.1', opts.port ?? 10249);
  const address = server.address() as AddressInfo;
  log.info('metrics server listening', { address: `${address.address}:${address.port}` });
  return { address, close: () => closeServer(server) };
}

async function serveMetrics(res: ServerResponse, registries: readonly Registry[]): Promise<void> {
  const texts = await Promise.all(registries.map((r) => r.metrics()));
  send(res, 200, registries[0]?.contentType ?? 'text/plain; version=0.0.4; charset=utf-8', texts.join(''));
}

function modeOf(mode: string | (() => string)): string {
  return typeof mode === 'function' ? mode() : mode;
}
