import { Client, type ClientDuplexStream } from '@grpc/grpc-js';
import { ErrorCodes, KpngError, toError } from '../../util/errors.js';
import { decodeResponse, encodeWatchRequest } from '../codec/envelope.js';
import type { Delivery, ResumeToken, StateSource } from '../hub.js';
import { WATCH_METHODS, type StreamApi } from '../service-definitions.js';
import { channelCredentials } from '../credentials.js';
import type { StreamTls } from '../tls.js';
import { systemClock, type Clock } from '../../util/clock.js';
import { ProgressCredentials, ReadProgress } from './read-progress.js';
import { streamClientRefusedTotal } from '../../metrics/stream-client.js';
import { MIN_BYTES_PER_WINDOW } from '../min-progress.js';

/** Decodes the State bytes `buf[start, end)` of one API (with whatever cache it keeps), perhaps over several turns. */
export type StateDecoder<S> = (buf: Buffer, start: number, end: number) => Delivery<S> | Promise<Delivery<S>>;

export interface GrpcSourceOptions {
  /** Default 256 MiB: gRPC's 4 MiB default is too small for a 10k-Service state. */
  readonly maxMessageBytes?: number;
  /**
   * Give up on the stream after this long without any byte from the server while waiting (a message
   * or part of one: a large state over a slow link keeps the stream alive while it arrives); default 3
   * heartbeat intervals.
   */
  readonly idleTimeoutMs?: number;
  /**
   * The least a message in flight must progress per idle timeout: an idle timeout in which no
   * message completed and fewer bytes than this came cuts the stream (a server or a link that
   * trickles); default `MIN_BYTES_PER_WINDOW` (64 KiB, `stream/min-progress.ts` says why).
   */
  readonly minBytesPerIdleTimeout?: number;
  /** The idle timer's clock (and the reconnect backoff's); default the system clock. */
  readonly clock?: Clock;
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
 * gone, stream ended, malformed message, no byte from the server for the idle timeout) rejects the
 * pending and all later `next` calls: the caller opens a new source, with backoff. Bytes count, not
 * only messages: gRPC hands a message over only once it is complete, and the server's heartbeats
 * wait behind a state it is writing, so a state that takes longer than the idle timeout to arrive
 * would otherwise be cut and asked for again forever. Bytes are not enough either: an idle timeout
 * in which no message completed must bring at least `minBytesPerIdleTimeout` (64 KiB), or the stream
 * is cut too, so a server (or a link) trickling a few bytes per idle timeout cannot hold the client
 * waiting for a state that never completes. Either cut is counted in
 * `kpng_stream_client_refused_total{api, reason}` (`idle`, `slow`).
 */
export class GrpcStateSource<S> implements StateSource<S> {
  readonly #client: Client;
  readonly #call: ClientDuplexStream<Buffer, Buffer>;
  readonly #decode: StateDecoder<S>;
  readonly #api: StreamApi;
  readonly #idleTimeoutMs: number | undefined;
  readonly #minBytes: number;
  readonly #nodeName: string;
  readonly #clock: Clock;
  readonly #progress = new ReadProgress();
  #heartbeatMs = ASSUMED_HEARTBEAT_MS;
  /** Complete messages received (states and heartbeats). */
  #messages = 0;
  #state: Buffer | undefined;
  #failure: Error | undefined;
  #wake: (() => void) | undefined;
  #idleTimer: { cancel(): void } | undefined;

  constructor(api: StreamApi, target: string, decode: StateDecoder<S>, options: GrpcSourceOptions = {}) {
    this.#api = api;
    this.#decode = decode;
    this.#idleTimeoutMs = options.idleTimeoutMs;
    this.#minBytes = options.minBytesPerIdleTimeout ?? MIN_BYTES_PER_WINDOW;
    this.#nodeName = api === 'global' ? (options.nodeName ?? '') : '';
    this.#clock = options.clock ?? systemClock;
    // A private channel per source: no shared subchannel (and its own reconnect backoff) survives a failure.
    const credentials = new ProgressCredentials(channelCredentials(options.tls), this.#progress);
    this.#client = new Client(target, credentials, {
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
      // The state is here: its decode is this client's work, not the server's liveness.
      this.#idleTimer?.cancel();
      const buf = this.#state;
      this.#state = undefined;
      const res = decodeResponse(buf);
      if (res.type !== 'state') throw new Error('internal: queued message is not a state');
      return await this.#decode(buf, res.start, res.end);
    } finally {
      this.#wake = undefined;
      this.#idleTimer?.cancel();
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Bytes read from the server so far (below TLS and HTTP/2 framing), over every connection of this source. */
  bytesReceived(): number {
    return this.#progress.bytes();
  }

  /** Complete messages received from the server so far (states and heartbeats). */
  messagesReceived(): number {
    return this.#messages;
  }

  close(): void {
    this.#idleTimer?.cancel();
    this.#failure ??= new KpngError(ErrorCodes.StreamClosed, 'state stream closed');
    this.#call.cancel();
    this.#client.close();
  }

  #onMessage(buf: Buffer): void {
    this.#messages++;
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

  /**
   * (Re)starts the idle timer (a complete message re-arms it through `next`). When it fires, a
   * message completed or `minBytes` read since it was set re-arm it; no byte, or fewer bytes and no
   * message, fail the stream. A timer that fired late by over half an idle timeout (and over 1 s)
   * timed a window in which this process itself did not read (its event loop held, the process
   * stopped): it re-arms instead.
   */
  #armIdleTimer(): void {
    this.#idleTimer?.cancel();
    const ms = this.#idleTimeoutMs ?? 3 * this.#heartbeatMs;
    const readBefore = this.#progress.bytes();
    const messagesBefore = this.#messages;
    const armedAt = this.#clock.monotonic();
    this.#idleTimer = this.#clock.setTimeout(() => {
      if (this.#failure) return;
      const read = this.#progress.bytes() - readBefore;
      if (this.#messages > messagesBefore || read >= this.#minBytes) return this.#armIdleTimer();
      if (this.#clock.monotonic() - armedAt - ms > Math.max(ms / 2, 1000)) return this.#armIdleTimer();
      streamClientRefusedTotal.inc({ api: this.#api, reason: read === 0 ? 'idle' : 'slow' });
      this.#fail(
        new KpngError(
          ErrorCodes.Unavailable,
          read === 0
            ? `no byte from the server for ${ms} ms`
            : `the server sent ${read} bytes in ${ms} ms and completed no message (the least is ${this.#minBytes})`,
        ),
      );
    }, ms);
  }

  #fail(e: Error): void {
    this.#failure ??= e;
    this.#wake?.();
  }
}
