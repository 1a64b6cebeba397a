/**
 * The least a state stream's message in flight must progress, on both ends: 64 KiB per window,
 * the window being the client's idle timeout (3 heartbeat intervals, 15 s by default), ~35 kbit/s.
 *
 * Why 64 KiB: it is one HTTP/2 flow-control window at its default size, and far under any link a
 * node reaches its control plane over. A link this slow still carries the ~1 MB state of a
 * 2,000-Service node in 4 minutes; a slow but real link (1 Mbit/s, a congested or satellite WAN)
 * moves 1.8 MiB per window, 29 times the bound; loopback and a LAN, thousands of times. A peer that
 * trickles one byte per window is 65,536 times under it.
 *
 * The client cuts a stream whose window brought fewer bytes and no complete message
 * (`GrpcStateSource`); the server closes a call whose client has not taken a message within
 * `drainBoundMs` of writing it (`ServerSession`).
 */
export const MIN_BYTES_PER_WINDOW = 64 * 1024;

/**
 * How long a client may take to drain a message of `bytes` before the server closes its call: one
 * window, plus one window per `minBytesPerWindow` of the message (at the defaults: a heartbeat 15 s; a
 * 1 MB state, a 2,000-Service node's, 4 min 4 s; a 20 MB state 77 min).
 */
export function drainBoundMs(bytes: number, windowMs: number, minBytesPerWindow = MIN_BYTES_PER_WINDOW): number {
  return Math.ceil(windowMs * (1 + bytes / minBytesPerWindow));
}
