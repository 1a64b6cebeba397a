import { Client, type ClientDuplexStream } from '@grpc/grpc-js';
import { ErrorCodes, KpngError, toError } from '../../util/errors.js';
import { decodeResponse, encodeWatchRequest } from '../codec/envelope.js';
import type { Delivery, ResumeToken, StateSource } from '../hub.js';
import { WATCH_METHODS, type StreamApi } from '../service-definitions.js';
import { channelCredentials } from '../credentials.js';
import type { StreamTls } from '../tls.js';

/** Decodes the State bytes `buf[start, end)` of one API (with whatever cache it keeps), perhaps over several turns. */
export type StateDecoder<S> = (buf: Buffer, start: number, end: number) => Delivery<S> | Promise<Delivery<S>>;

export interface GrpcSourceOptions {
  /** Default 256 MiB: gRPC's 4 MiB default is too small for a 10k-Service state. */
  readonly maxMessageBytes?: number;
  /** Give up on the stream after this long without any message while waiting; default 3 heartbeat intervals. */
  readonly idleTimeoutMs?: number;
  /** Mutual TLS (a central core's global stream off loopback): the server's CA, this client's certificate and key. */
  readonly tls?: StreamTls;
  /**
   * The node this client serves, sent in every request of the global stream (`node_name`): a
   * central core with mutual TLS serves it only if the client certificate names that node.
   */
  readonly nodeName?: string;
}

export const DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024 * 1024;
/** Until the server announces its heartbeat interval (in its first message). */
const ASSUMED_HEARTBEAT_MS = 5000;

/**
 * One Watch call seen as a StateSource: `next(token)` sends the token (the credit) and resolves
 * with the state that answers it. Heartbeats only prove liveness. Any failure of the call (server
 * gone, stream ended, no heartbeat in time, malformed message) rejects the pending and all later
 * `next` calls: the caller opens a new source, with backoff.
 */
export class GrpcStateSource<S> implements StateSource<S> {
  readonly #client: Client;
  readonly #call: ClientDuplexStream<Buffer, Buffer>;
  readonly #decode: StateDecoder<S>;
  readonly #idleTimeoutMs: number | undefined;
  readonly #nodeName: string;
  #heartbeatMs = ASSUMED_HEARTBEAT_MS;
  #state: Buffer | undefined;
  #failure: Error | undefined;
  #wake: (() => void) | undefined;
  #idleTimer: NodeJS.Timeout | undefined;

  constructor(api: StreamApi, target: string, decode: StateDecoder<S>, options: GrpcSourceOptions = {}) {
    this.#decode = decode;
    this.#idleTimeoutMs = options.idleTimeoutMs;
    this.#nodeName = api === 'global' ? (options.nodeName ?? '') : '';
    // A private channel per source: no shared subchannel (and its own reconnect backoff) survives a failure.
    this.#client = new Client(target, channelCredentials(options.tls), {
      'grpc.max_receive_message_length': options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      'grpc.use_local_subchannel_pool': 1,
      'grpc.enable_retries': 0,
    });
    const m = WATCH_METHODS[api];
    this.#call = this.#client.makeBidiStreamRequest(m.path, m.requestSerialize, m.responseDeserialize);
    this.#call.on('data', (buf: Buffer) => this.#onMessage(buf));
    this.#call.on('error', (e) =>
      this.#fail(new KpngError(ErrorCodes.Unavailable, `state stream failed: ${e.message}`, { cause: e })),
    );
    this.#call.on('end', () => this.#fail(new KpngError(ErrorCodes.StreamClosed, 'the server ended the state stream')));
  }

  async next(after: ResumeToken | undefined, signal?: AbortSignal): Promise<Delivery<S>> {
    if (this.#failure) throw this.#failure;
    this.#call.write(encodeWatchRequest(after, this.#nodeName));
    const onAbort = () => this.#wake?.();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      while (!this.#state) {
        if (this.#failure) throw this.#failure;
        signal?.throwIfAborted();
        this.#armIdleTimer();
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
      const buf = this.#state;
      this.#state = undefined;
      const res = decodeResponse(buf);
      if (res.type !== 'state') throw new Error('internal: queued message is not a state');
      return await this.#decode(buf, res.start, res.end);
    } finally {
      this.#wake = undefined;
      clearTimeout(this.#idleTimer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  close(): void {
    clearTimeout(this.#idleTimer);
    this.#failure ??= new KpngError(ErrorCodes.StreamClosed, 'state stream closed');
    this.#call.cancel();
    this.#client.close();
  }

  #onMessage(buf: Buffer): void {
    try {
      const res = decodeResponse(buf);
      if (res.type === 'state') this.#state = buf;
      else if (res.type === 'heartbeat' && res.heartbeat.intervalMs > 0) this.#heartbeatMs = res.heartbeat.intervalMs;
    } catch (e) {
      this.#fail(toError(e));
      return;
    }
    this.#wake?.(); // the waiting `next` re-arms its idle timer or takes the state
  }

  #armIdleTimer(): void {
    clearTimeout(this.#idleTimer);
    const ms = this.#idleTimeoutMs ?? 3 * this.#heartbeatMs;
    this.#idleTimer = setTimeout(
      () => this.#fail(new KpngError(ErrorCodes.Unavailable, `no message from the server for ${ms} ms`)),
      ms,
    );
    this.#idleTimer.unref();
  }

  #fail(e: Error): void {
    this.#failure ??= e;
    this.#wake?.();
  }
}
