import type { Server, ServerResponse } from 'node:http';

/** Small node:http helpers shared by the metrics, node health and service health servers (see ./http-door.ts). */

export function send(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, { ...headers, 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * Listens, rejecting on the first error (e.g. EADDRINUSE) instead of leaving an unhandled event.
 * IPv6 hosts listen IPv6-only, so `0.0.0.0` and `::` can both be bound on one port.
 */
export function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error) => reject(e);
    server.once('error', onError);
    server.listen({ port, host, ipv6Only: host.includes(':') }, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** Closes the server, dropping idle keep-alive connections so close does not hang on them. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
