/**
 * Why an informer failed, as far as the retry schedule cares:
 * - `unreachable`: no answer from the API server at all (connection refused or reset, a stream
 *   cut short, no route). Nothing reached the server's handlers, so retrying often costs it nothing,
 *   and the retry that finds it back should come soon.
 * - `answered`: the server (or a proxy in front of it) answered with an error status, or answered
 *   something unusable, or did not answer in time. It may be overloaded: back off as client-go does.
 */
export type FailureClass = 'unreachable' | 'answered';

/** Socket-level error codes (Node's `code`, also on node-fetch's FetchError) meaning "no answer". */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'ECONNABORTED',
  'EADDRNOTAVAIL',
  // A connect that got no reply at all (a partition): the SYN never reached a listener.
  'ETIMEDOUT',
  // A watch stream ended mid-chunk (the server died with the connection open).
  'ERR_STREAM_PREMATURE_CLOSE',
]);

export function classifyFailure(err: unknown): FailureClass {
  if (typeof (err as { statusCode?: unknown } | null)?.statusCode === 'number') return 'answered';
  const code = errorCode(err) ?? errorCode((err as { cause?: unknown } | null)?.cause);
  return code !== undefined && UNREACHABLE_CODES.has(code) ? 'unreachable' : 'answered';
}

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
