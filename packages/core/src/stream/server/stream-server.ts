import { Server, type ServerDuplexStream } from '@grpc/grpc-js';
import { formatListenAddress } from '../../util/address.js';
import { log as defaultLog, type Logger } from '../../util/log.js';
import type { Delivery, StateHub } from '../hub.js';
import { ServerSession, type StreamObserver } from './server-session.js';
import { WATCH_METHODS, type StreamApi } from '../service-definitions.js';
import { parseServeAddress } from '../stream-address.js';
import { serverCredentials } from '../credentials.js';
import type { StreamTls } from '../tls.js';
import { bindPrivateUnixSocket, type BoundSocket } from './unix-socket.js';

export interface ServeOptions<S> {
  readonly hub: StateHub<S>;
  /** `unix:///path`, `127.0.0.1:PORT` or `[::1]:PORT` (port 0 picks a free one). */
  readonly address: string;
  /**
   * Mutual TLS: clients must present a certificate signed by `tls.ca`. Required for any address
   * but a unix socket or loopback (central-core mode); accepted on loopback too.
   */
  readonly tls?: StreamTls;
  /** Default 5000. */
  readonly heartbeatIntervalMs?: number;
  readonly observer?: StreamObserver;
  readonly logger?: Logger;
}

export interface StreamServer {
  /** The bound address, with the real port when 0 was asked for. */
  readonly address: string;
  /** Ends every client stream cleanly, stops the server and removes its unix socket. */
  close(): Promise<void>;
}

export const DEFAULT_HEARTBEAT_INTERVAL_MS = 5000;
/** Requests are tiny resume tokens; anything large is not a kpng client. */
const MAX_REQUEST_BYTES = 64 * 1024;

export async function serveStateStream<S>(
  api: StreamApi,
  encode: (d: Delivery<S>) => Buffer,
  options: ServeOptions<S>,
): Promise<StreamServer> {
  const address = parseServeAddress(options.address, options.tls !== undefined);
  const log = (options.logger ?? defaultLog).with({ component: 'stream', api });
  const server = new Server({ 'grpc.max_receive_message_length': MAX_REQUEST_BYTES });
  const sessions = new Set<ServerSession<S>>();
  const ctx = {
    api,
    hub: options.hub,
    encode,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS,
    observer: options.observer,
    log,
  };
  server.addService(
    { Watch: WATCH_METHODS[api] },
    {
      Watch: (call: ServerDuplexStream<Buffer, Buffer>) => {
        const session = new ServerSession(call, ctx);
        sessions.add(session);
        void session.run().finally(() => sessions.delete(session));
      },
    },
  );

  const credentials = serverCredentials(options.tls);
  const bind = (target: string) =>
    new Promise<number>((resolve, reject) =>
      server.bindAsync(target, credentials, (err, port) => (err ? reject(err) : resolve(port))),
    );
  let socket: BoundSocket | undefined;
  let bound: string;
  try {
    if (address.kind === 'unix') {
      socket = await bindPrivateUnixSocket(address.path, async (path) => void (await bind(`unix://${path}`)));
      bound = formatListenAddress(address);
    } else {
      const port = await bind(formatListenAddress(address));
      bound = formatListenAddress({ ...address, port });
    }
  } catch (e) {
    server.forceShutdown();
    throw e;
  }
  log.info('serving the state stream', { address: bound, tls: options.tls !== undefined });

  return {
    address: bound,
    close: async () => {
      for (const s of sessions) s.end();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 1000);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      await socket?.release();
    },
  };
}
