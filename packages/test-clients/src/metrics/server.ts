import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  closeServer,
  createHttpDoor,
  httpRefusals,
  registerProcessFaults,
  type DoorHandler,
  type DoorLog,
} from '@kpng/core/program';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  /** The port actually bound (useful with port 0). */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * `/metrics` (Prometheus text) and `/healthz` (200, empty body), as upstream serves them on Go's
 * DefaultServeMux: any method, unclean paths (`//`, `.`, `..`) redirected, 404 elsewhere. Built on
 * core's HTTP door, so hostile input is answered and counted (`kpng_http_refused_requests_total`,
 * server="metrics") as on kpng's own servers; `kpng_unexpected_errors_total` is served too.
 * `host` '' listens on every address, like Go's `:<port>`.
 */
export async function startMetricsServer(options: {
  readonly host: string;
  readonly port: number;
  readonly registry: Registry;
  readonly log?: DoorLog;
}): Promise<MetricsServer> {
  const { registry } = options;
  registerProcessFaults(registry);
  const server: Server = createHttpDoor({
    name: 'metrics',
    paths: 'clean',
    refused: httpRefusals(registry),
    ...(options.log ? { log: options.log } : {}),
    routes: new Map<string, DoorHandler>([
      ['/healthz', (_req, res) => void res.writeHead(200, { 'Content-Length': 0 }).end()],
      [
        '/metrics',
        async (_req, res) => {
          const text = await registry.metrics();
          res.writeHead(200, { 'Content-Type': registry.contentType }).end(text);
        },
      ],
    ]),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const onListening = (): void => {
      server.off('error', reject);
      resolve();
    };
    if (options.host === '') server.listen(options.port, onListening);
    else server.listen(options.port, options.host, onListening);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      const closing = closeServer(server);
      server.closeAllConnections();
      await closing;
    },
  };
}
