import { status, type ServerDuplexStream } from '@grpc/grpc-js';
import type { Logger } from '../../util/log.js';
import { ErrorCodes, KpngError, toError } from '../../util/errors.js';
import { decodeWatchRequest, encodeHeartbeat } from '../codec/envelope.js';
import type { Delivery, ResumeToken, StateHub } from '../hub.js';
import type { StreamApi } from '../service-definitions.js';
import type { Clock } from '../../util/clock.js';
import { drainBoundMs } from '../min-progress.js';
import { resetCall } from './reset-call.js';

/** Stream metrics hooks (`kpng_stream_clients` and friends); the metrics module implements them. */
export interface StreamObserver {
  clientConnected(api: StreamApi): void;
  clientDisconnected(api: StreamApi): void;
  stateSent(api: StreamApi, info: { readonly revision: number; readonly full: boolean; readonly bytes: number }): void;
  /** A Watch call refused by a limit (`peer_streams`, `streams`, `node_identity`) or closed (`slow_client`). */
  streamRefused?(api: StreamApi, reason: StreamRefusal): void;
}

/**
 * `peer_streams`, `streams`: a limit; `node_identity`: on the global stream with mutual TLS, the
 * client certificate names no node, or not the node the request names; `slow_client`: an open call
 * closed because its client did not take a message within its bound (`drainBoundMs`).
 */
export type StreamRefusal = 'peer_streams' | 'streams' | 'node_identity' | 'slow_client';

/**
 * Checks the node a request names against the caller's certificate; `undefined` when allowed,
 * else the refusal's text (already counted and logged by the checker).
 */
export type NodeCheck = (requested: string) => string | undefined;

/** How a stream's states become bytes. */
export interface StateEncoder<S> {
  /**
   * Does the costly part (encoding each object not encoded yet, cached by identity) over as many
   * event-loop turns as it needs, so that `encode` of the same state is then a concatenation.
   */
  readonly prepare: (state: S) => Promise<void>;
  /** A complete response for one client. */
  readonly encode: (d: Delivery<S>) => Buffer;
}

export interface SessionContext<S> {
  readonly api: StreamApi;
  readonly hub: StateHub<S>;
  readonly codec: StateEncoder<S>;
  readonly heartbeatIntervalMs: number;
  readonly observer: StreamObserver | undefined;
  readonly log: Logger;
  /** The drain bound's clock. */
  readonly clock: Clock;
  /** The drain bound: each write must be taken within `drainBoundMs(bytes, drainWindowMs, minDrainBytesPerWindow)`. */
  readonly drainWindowMs: number;
  readonly minDrainBytesPerWindow: number;
}

/**
 * One client's Watch call. Each request is a resume token and the credit for exactly one state:
 * the next state is only computed and sent once the client asks, so a busy client skips revisions.
 * A request that arrives before the state it asked for was sent replaces the earlier token.
 *
 * Backpressure: a state is written only once the previous write completed (HTTP/2 flow control
 * holds it until the client reads), and a heartbeat only when nothing is pending, so a client that
 * asks and never reads holds at most one state and one heartbeat in this server however many
 * requests it sends and revisions come. A client that reads too slowly (or not at all) does not
 * hold even that for long: a write the client has not taken within its bound (one window, 15 s by
 * default, plus one window per 64 KiB of the message: `drainBoundMs`) closes the call (its HTTP/2
 * stream reset, which drops the queued bytes), counted as `slow_client` and logged.
 *
 * A state's objects are encoded over as many event-loop turns as they need (`StateEncoder.prepare`,
 * a 10 ms budget per turn), so a new client's first state does not hold the server's event loop.
 */
export class ServerSession<S> {
  readonly #abort = new AbortController();
  #token: ResumeToken | undefined;
  #hasCredit = false;
  #wakeCredit: (() => void) | undefined;
  /** Bytes written to the call whose write has not completed yet. */
  #pendingBytes = 0;

  constructor(
    private readonly call: ServerDuplexStream<Buffer, Buffer>,
    private readonly ctx: SessionContext<S>,
    /** Absent: requests name no node that matters (the local stream, or no TLS). */
    private readonly checkNode?: NodeCheck,
  ) {
    this.#abort.signal.addEventListener('abort', () => this.#wakeCredit?.(), { once: true });
  }

  async run(): Promise<void> {
    const { call, ctx } = this;
    ctx.observer?.clientConnected(ctx.api);
    const stop = () => this.#abort.abort();
    call.on('data', (buf: Buffer) => this.#onRequest(buf));
    call.on('end', () => this.end());
    call.on('cancelled', stop);
    call.on('error', stop);
    call.on('close', stop);
    this.#heartbeat();
    const timer = setInterval(() => this.#heartbeat(), ctx.heartbeatIntervalMs);
    timer.unref();
    try {
      await this.#serve();
    } catch (e) {
      if (e instanceof KpngError && e.code === ErrorCodes.StreamClosed) {
        this.end(); // the hub closed: the client reconnects and finds the next server
      } else if (!this.#abort.signal.aborted) {
        ctx.log.warn('state stream session failed', { api: ctx.api, err: toError(e) });
        call.emit('error', { code: status.INTERNAL, details: toError(e).message });
      }
    } finally {
      clearInterval(timer);
      this.#abort.abort();
      ctx.observer?.clientDisconnected(ctx.api);
    }
  }

  /** Bytes handed to the call and not yet taken by the client (what a silent client costs). */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  /** Ends the call cleanly (server shutdown or the client half-closed). */
  end(): void {
    if (this.#abort.signal.aborted) return;
    this.#abort.abort();
    this.call.end();
  }

  async #serve(): Promise<void> {
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      await this.#credit(signal);
      if (signal.aborted) return;
      this.#hasCredit = false;
      const delivery = await this.ctx.hub.next(this.#token, signal);
      await this.ctx.codec.prepare(delivery.state);
      if (signal.aborted) return;
      const bytes = this.ctx.codec.encode(delivery);
      const written = this.#write(bytes);
      this.ctx.observer?.stateSent(this.ctx.api, {
        revision: delivery.revision,
        full: delivery.full,
        bytes: bytes.length,
      });
      await written;
    }
  }

  /** Resolves once the client took `bytes` (or the session ended: a cancelled call never calls back). */
  #write(bytes: Buffer): Promise<void> {
    const signal = this.#abort.signal;
    if (signal.aborted) return Promise.resolve();
    this.#pendingBytes += bytes.length;
    const { clock, drainWindowMs, minDrainBytesPerWindow } = this.ctx;
    const boundMs = drainBoundMs(bytes.length, drainWindowMs, minDrainBytesPerWindow);
    return new Promise<void>((resolve) => {
      let settled = false;
      const late = clock.setTimeout(() => this.#closeSlowClient(bytes.length, boundMs), boundMs);
      const done = () => {
        if (settled) return;
        settled = true;
        late.cancel();
        this.#pendingBytes -= bytes.length;
        signal.removeEventListener('abort', done);
        resolve();
      };
      signal.addEventListener('abort', done, { once: true });
      this.call.write(bytes, () => done());
    });
  }

  /** A write not taken within its bound: the call is closed, its queued bytes dropped; counted and logged. */
  #closeSlowClient(bytes: number, boundMs: number): void {
    if (this.#abort.signal.aborted) return;
    const { api, observer, log, minDrainBytesPerWindow, drainWindowMs } = this.ctx;
    observer?.streamRefused?.(api, 'slow_client');
    log.warn('closing a state stream: its client did not take a message within its bound', {
      peer: this.call.getPeer(),
      bytes,
      boundMs,
      minBytesPerWindow: minDrainBytesPerWindow,
      windowMs: drainWindowMs,
    });
    this.#abort.abort();
    if (!resetCall(this.call)) {
      this.call.emit('error', { code: status.DEADLINE_EXCEEDED, details: 'the client did not take a message in time' });
    }
  }

  #onRequest(buf: Buffer): void {
    let request;
    try {
      request = decodeWatchRequest(buf);
    } catch (e) {
      this.call.emit('error', { code: status.INVALID_ARGUMENT, details: toError(e).message });
      return;
    }
    // Every request, not only the first: a call never serves a node its certificate does not name.
    const refused = this.checkNode?.(request.nodeName);
    if (refused !== undefined) {
      this.call.emit('error', { code: status.PERMISSION_DENIED, details: refused });
      return;
    }
    this.#token = request.token;
    this.#hasCredit = true;
    this.#wakeCredit?.();
  }

  #credit(signal: AbortSignal): Promise<void> {
    if (this.#hasCredit || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      this.#wakeCredit = () => {
        this.#wakeCredit = undefined;
        resolve();
      };
    });
  }

  #heartbeat(): void {
    // Anything still pending: the client is not reading, and a heartbeat would only queue behind it.
    if (this.#abort.signal.aborted || this.#pendingBytes > 0) return;
    const { hub, heartbeatIntervalMs } = this.ctx;
    void this.#write(
      encodeHeartbeat({ instanceId: hub.instanceId, revision: hub.revision, intervalMs: heartbeatIntervalMs }),
    );
  }
}
