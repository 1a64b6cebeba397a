import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  /** The port actually bound (useful with port 0). */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * `GET /metrics` (Prometheus text) and `GET /healthz` (200, empty body), as upstream serves them.
 * `host` '' listens on every address, like Go's `:<port>`.
 */
export async function startMetricsServer(options: {
  readonly host: string;
  readonly port: number;
  readonly registry: Registry;
}): Promise<MetricsServer> {
  const { registry } = options;
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end();
      return;
    }
    if (path === '/healthz') {
      res.writeHead(200, { 'Content-Length': 0 }).end();
      return;
    }
    if (path === '/metrics') {
      registry.metrics().then(
        (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
        (error: unknown) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end(String(error)),
      );
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('404 page not found\n');
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
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
