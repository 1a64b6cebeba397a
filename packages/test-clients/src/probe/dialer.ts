/**
 * How a probe reaches a target: one connection attempt. The real one is `tcpDialer` (node:net);
 * tests inject fakes, and the lab e2e a dialer that connects from inside a pod's network namespace.
 */
export interface Dialer {
  dial(request: DialRequest): Promise<DialResult>;
}

export interface DialRequest {
  /** An IPv4 or IPv6 address (IPv6 without brackets). */
  readonly host: string;
  readonly port: number;
  /** Bound on the whole attempt: connect, plus the reply when `readReply`. */
  readonly timeoutMs: number;
  /** Wait for the server's first line (who answered); otherwise a completed connect is enough. */
  readonly readReply: boolean;
  /** Written once connected, before reading the reply (an HTTP request). */
  readonly send?: string;
  readonly signal?: AbortSignal;
}

/**
 * `refused`: the connection was rejected (RST or ICMP port unreachable); `timeout`: no answer in
 * time (a drop); `unreachable`: no route / ICMP host or net unreachable; `reset`: closed by the peer
 * before answering; `aborted`: the probe was cancelled; anything else is the errno code.
 */
export type DialError = 'refused' | 'timeout' | 'unreachable' | 'reset' | 'aborted' | (string & {});

/**
 * `at`: when the attempt was decided (connected, reply read, or failed), epoch ms on the same clock
 * as the probe's `Clock` (`systemClock` for `tcpDialer`). Stamped by the dialer at the socket event,
 * so the probe's timing does not include how long the event loop took to run the continuation (a
 * busy client, or a dialer in another process); without it the probe loop takes its clock's time.
 */
export type DialResult =
  | { readonly ok: true; readonly reply?: string; readonly at?: number }
  | { readonly ok: false; readonly error: DialError; readonly at?: number };
