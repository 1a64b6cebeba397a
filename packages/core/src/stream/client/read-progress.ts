import { ChannelCredentials } from '@grpc/grpc-js';
import type { Socket } from 'node:net';

type CreateConnector = ChannelCredentials['_createSecureConnector'];

/**
 * Bytes read from the server by one channel's connections (the raw socket's `bytesRead`, counted
 * below TLS and HTTP/2 framing). gRPC hands a message over only once it is complete, so this is the
 * only sign that a large state is still arriving over a slow link.
 */
export class ReadProgress {
  readonly #open = new Set<Socket>();
  #closedBytes = 0;

  watch(socket: Socket): void {
    this.#open.add(socket);
    socket.once('close', () => {
      if (!this.#open.delete(socket)) return;
      this.#closedBytes += socket.bytesRead;
    });
  }

  bytes(): number {
    let n = this.#closedBytes;
    for (const s of this.#open) n += s.bytesRead;
    return n;
  }
}

/**
 * `inner` with every connection's socket handed to `progress` before the TLS handshake (if any).
 * A channel's credentials are the one place gRPC shows a connection's socket.
 */
export class ProgressCredentials extends ChannelCredentials {
  readonly #inner: ChannelCredentials;
  readonly #progress: ReadProgress;

  constructor(inner: ChannelCredentials, progress: ReadProgress) {
    super();
    this.#inner = inner;
    this.#progress = progress;
  }

  override _isSecure(): boolean {
    return this.#inner._isSecure();
  }

  override _equals(other: ChannelCredentials): boolean {
    return other === this;
  }

  override _createSecureConnector(...args: Parameters<CreateConnector>): ReturnType<CreateConnector> {
    const inner = this.#inner._createSecureConnector(...args);
    return {
      connect: (socket) => {
        this.#progress.watch(socket);
        return inner.connect(socket);
      },
      waitForReady: () => inner.waitForReady(),
      getCallCredentials: () => inner.getCallCredentials(),
      // The insecure connector has no destroy (its type says it has).
      destroy: () => (inner.destroy as (() => void) | undefined)?.call(inner),
    };
  }
}
