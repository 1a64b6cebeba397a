import { Server, status, type ServerDuplexStream } from '@grpc/grpc-js';
import { formatListenAddress } from '../../util/address.js';
import { log as defaultLog, type Logger } from '../../util/log.js';
import type { StateHub } from '../hub.js';
import {
  ServerSession,
  type NodeCheck,
  type StateEncoder,
  type StreamObserver,
  type StreamRefusal,
} from './server-session.js';
import { certificateNodeNames, nodeIdentityProblem } from './node-identity.js';
import { WATCH_METHODS, type StreamApi } from '../service-definitions.js';
import { parseServeAddress } from '../stream-address.js';
import { serverCredentials } from '../credentials.js';
import type { StreamTls } from '../tls.js';
import { bindPrivateUnixSocket, type BoundSocket } from './unix-socket.js';
import { systemClock, type Clock } from '../../util/clock.js';
import { MIN_BYTES_PER_WINDOW } from '../min-progress.js';

export interface ServeOptions<S> {
  readonly hub: StateHub<S>;
  /** `unix:///path`, `127.0.0.1:PORT` or `[::1]:PORT` (port 0 picks a free one). */
  readonly address: string;
  /**
   * Mutual TLS: clients must present a certificate signed by `tls.ca`. Required for any address
   * but a unix socket or loopback (central-core mode); accepted on loopback too. On the global
   * stream each client must also be a node: its certificate names one (a DNS subjectAltName, or a
   * subject CN `system:node:NAME` as the kubelet's), and every request names that node
   * (`node_name`); any other call is refused (`node_identity`).
   */
  readonly tls?: StreamTls;
  /** Default 5000. */
  readonly heartbeatIntervalMs?: number;
  readonly observer?: StreamObserver;
  readonly logger?: Logger;
  /** Watch calls open at once from one peer (one IP, or every client of the unix socket); default 16. */
  readonly maxStreamsPerPeer?: number;
  /** Watch calls open at once in all; default 10,000 (twice the nodes a cluster may have). */
  readonly maxStreams?: number;
  /**
   * A client must take each message within `drainBoundMs(bytes, drainWindowMs, minDrainBytesPerWindow)`,
   * or its call is closed (`slow_client`). Default window: 3 heartbeat intervals (the client's idle
   * timeout), at least 15 s (a test's short heartbeat does not make a loaded machine's late write
   * callback a slow client); default least bytes per window: `MIN_BYTES_PER_WINDOW` (64 KiB,
   * `stream/min-progress.ts`).
   */
  readonly drainWindowMs?: number;
  readonly minDrainBytesPerWindow?: number;
  /** The drain bound's clock; default the system clock. */
  readonly clock?: Clock;
}

export interface StreamServer {
  /** The bound address, with the real port when 0 was asked for. */
  readonly address: string;
  /** Bytes written to clients and not taken by them yet, over every open call. */
  pendingBytes(): number;
  /** Ends every client stream cleanly, stops the server and removes its unix socket. */
  close(): Promise<void>;
}

export const DEFAULT_HEARTBEAT_INTERVAL_MS = 5000;
/** Requests are tiny resume tokens; anything large is not a kpng client. */
const MAX_REQUEST_BYTES = 64 * 1024;
export const DEFAULT_MAX_STREAMS_PER_PEER = 16;
export const DEFAULT_MAX_STREAMS = 10_000;
/** HTTP/2 streams one connection may open at once: a kpng client opens one. */
const MAX_CONCURRENT_STREAMS_PER_CONNECTION = 16;

/** The peer a call counts against: its IP (the port dropped), or `local` for a unix socket client. */
function peerOf(call: ServerDuplexStream<Buffer, Buffer>): string {
  const peer = call.getPeer();
  if (peer === 'unknown' || peer.startsWith('unix:')) return 'local';
  const colon = peer.lastIndexOf(':');
  return colon > 0 && /^[0-9]+$/.test(peer.slice(colon + 1)) ? peer.slice(0, colon) : peer;
}

export async function serveStateStream<S>(
  api: StreamApi,
  codec: StateEncoder<S>,
  options: ServeOptions<S>,
): Promise<StreamServer> {
  const address = parseServeAddress(options.address, options.tls !== undefined);
  const log = (options.logger ?? defaultLog).with({ component: 'stream', api });
  const server = new Server({
    'grpc.max_receive_message_length': MAX_REQUEST_BYTES,
    'grpc.max_concurrent_streams': MAX_CONCURRENT_STREAMS_PER_CONNECTION,
  });
  const sessions = new Set<ServerSession<S>>();
  const perPeer = new Map<string, number>();
  const maxPerPeer = options.maxStreamsPerPeer ?? DEFAULT_MAX_STREAMS_PER_PEER;
  const maxStreams = options.maxStreams ?? DEFAULT_MAX_STREAMS;
  /** Limits hit and logged, until a call under them closes again: a flood of refused calls makes one line. */
  const warned = new Set<string>();
  /** Refuses a call over a limit: counted, logged (once per peer and reason until it is under again), RESOURCE_EXHAUSTED. */
  const refuse = (call: ServerDuplexStream<Buffer, Buffer>, peer: string, reason: StreamRefusal, limit: number) => {
    options.observer?.streamRefused?.(api, reason);
    const key = reason === 'streams' ? reason : `${reason} ${peer}`;
    if (!warned.has(key)) log.warn('refusing state stream calls: too many open', { peer, reason, limit });
    warned.add(key);
    call.on('error', () => {});
    call.emit('error', {
      code: status.RESOURCE_EXHAUSTED,
      details: `too many state streams open (${reason === 'streams' ? 'server' : 'this peer'}: ${limit})`,
    });
  };
  /** Node-identity refusals logged per peer, until that peer is served: a client retrying makes one line. */
  const warnedIdentity = new Set<string>();
  const nodeCheck = (call: ServerDuplexStream<Buffer, Buffer>, peer: string): NodeCheck | undefined => {
    if (api !== 'global' || options.tls === undefined) return undefined;
    const certified = certificateNodeNames(call.getAuthContext()?.sslPeerCertificate);
    return (requested) => {
      const problem = nodeIdentityProblem(certified, requested);
      if (problem === undefined) {
        warnedIdentity.delete(peer);
        return undefined;
      }
      options.observer?.streamRefused?.(api, 'node_identity');
      const fields = { peer, node: requested.slice(0, 253), certified: certified.join(',').slice(0, 300) };
      if (!warnedIdentity.has(peer)) log.warn(`refusing a state stream call: ${problem}`, fields);
      else log.debug(2, `refusing a state stream call: ${problem}`, fields);
      if (warnedIdentity.size >= 10_000) warnedIdentity.clear();
      warnedIdentity.add(peer);
      return `${problem} (node ${JSON.stringify(requested.slice(0, 253))})`;
    };
  };
  const heartbeatIntervalMs = options.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS;
  const ctx = {
    api,
    hub: options.hub,
    codec,
    heartbeatIntervalMs,
    observer: options.observer,
    log,
    clock: options.clock ?? systemClock,
    drainWindowMs: options.drainWindowMs ?? 3 * Math.max(heartbeatIntervalMs, DEFAULT_HEARTBEAT_INTERVAL_MS),
    minDrainBytesPerWindow: options.minDrainBytesPerWindow ?? MIN_BYTES_PER_WINDOW,
  };
  server.addService(
    { Watch: WATCH_METHODS[api] },
    {
      Watch: (call: ServerDuplexStream<Buffer, Buffer>) => {
        const peer = peerOf(call);
        const open = perPeer.get(peer) ?? 0;
        if (sessions.size >= maxStreams) return refuse(call, peer, 'streams', maxStreams);
        if (open >= maxPerPeer) return refuse(call, peer, 'peer_streams', maxPerPeer);
        perPeer.set(peer, open + 1);
        const session = new ServerSession(call, ctx, nodeCheck(call, peer));
        sessions.add(session);
        void session.run().finally(() => {
          sessions.delete(session);
          warned.delete('streams');
          warned.delete(`peer_streams ${peer}`);
          const left = (perPeer.get(peer) ?? 1) - 1;
          if (left > 0) perPeer.set(peer, left);
          else perPeer.delete(peer);
        });
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
    pendingBytes: () => {
      let bytes = 0;
      for (const s of sessions) bytes += s.pendingBytes;
      return bytes;
    },
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
