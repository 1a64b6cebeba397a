// Keep this file free of runtime imports other than node built-ins: the lab e2e runs it, transpiled
// on its own, inside a pod's network namespace (test/support/netns-dialer.ts).
import { connect } from 'node:net';
import type { DialError, Dialer, DialRequest, DialResult } from './dialer.js';

/** A reply longer than this is cut: only its start identifies the server. */
const MAX_REPLY_BYTES = 1_024;

const ERRNO: Readonly<Record<string, DialError>> = {
  ECONNREFUSED: 'refused',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EHOSTDOWN: 'unreachable',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  ETIMEDOUT: 'timeout',
};

/**
 * One TCP connection with node:net, no child process (upstream forks curl per attempt). IPv6
 * addresses are passed as they are: node:net needs no brackets. Without `readReply` the attempt
 * succeeds once the handshake completes; with it, once the first line (or the whole reply, if the
 * server closes first) has arrived.
 */
export const tcpDialer: Dialer = {
  dial(request: DialRequest): Promise<DialResult> {
    return new Promise<DialResult>((resolve) => {
      if (request.signal?.aborted) return resolve({ ok: false, error: 'aborted' });
      let settled = false;
      let reply = '';
      const socket = connect({ host: request.host, port: request.port, noDelay: true });
      const finish = (result: DialResult): void => {
        if (settled) return;
        settled = true;
        // systemClock's formula (util/clock.ts), inlined: this file imports node built-ins only.
        const at = performance.timeOrigin + performance.now();
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
        socket.destroy();
        resolve({ ...result, at });
      };
      const onAbort = (): void => finish({ ok: false, error: 'aborted' });
      // The verdict waits for one poll phase after the timer: on a busy loop, timers run before
      // pending socket events are read, and an answer that is already here is not a timeout.
      const timer = setTimeout(() => setImmediate(() => finish({ ok: false, error: 'timeout' })), request.timeoutMs);
      request.signal?.addEventListener('abort', onAbort, { once: true });
      socket.setEncoding('utf8');
      socket.on('connect', () => {
        if (request.send !== undefined) socket.write(request.send);
        if (!request.readReply) finish({ ok: true });
      });
      socket.on('data', (chunk: string) => {
        reply += chunk;
        const newline = reply.indexOf('\n');
        if (newline >= 0 || reply.length >= MAX_REPLY_BYTES)
          finish({ ok: true, reply: reply.slice(0, newline >= 0 ? newline : MAX_REPLY_BYTES) });
      });
      socket.on('end', () => {
        if (reply !== '') finish({ ok: true, reply });
        else finish({ ok: false, error: 'reset' });
      });
      socket.on('error', (error: NodeJS.ErrnoException) =>
        finish({ ok: false, error: ERRNO[error.code ?? ''] ?? error.code ?? error.message }),
      );
    });
  },
};
