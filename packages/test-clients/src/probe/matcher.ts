/**
 * Decides whether a completed connection counts as "the target answered". Pluggable: a plain
 * connect for ordinary targets, or a reply check when several servers share an address (a
 * Service's ClusterIP) and the probe must know WHICH one answered.
 */
export interface SuccessMatcher {
  /** The dialer must read the server's first line. */
  readonly needsReply: boolean;
  /** For logs, e.g. `connect` or `reply-prefix "web-2"`. */
  readonly description: string;
  accepts(reply: string | undefined): boolean;
  /** What to write once connected (e.g. an HTTP request); nothing when absent. */
  readonly request?: (host: string, port: number) => string;
}

/** Any completed TCP handshake is a success (kpng's precise mode). */
export const connectMatcher: SuccessMatcher = {
  needsReply: false,
  description: 'connect',
  accepts: () => true,
};

/**
 * The reply must start with `prefix`, followed by whitespace or nothing: `web-1` matches
 * `web-1 198.18.1.10` but not `web-10 198.18.1.10`. The lab echo server and
 * `agnhost serve-hostname --tcp` both start their answer with the pod's name.
 */
export function replyPrefixMatcher(prefix: string): SuccessMatcher {
  return {
    needsReply: true,
    description: `reply-prefix ${JSON.stringify(prefix)}`,
    accepts(reply) {
      if (reply === undefined || !reply.startsWith(prefix)) return false;
      const next = reply.charAt(prefix.length);
      return next === '' || /\s/.test(next);
    },
  };
}

/**
 * What upstream's `curl --connect-timeout 1 <ip>:<port>` counts as a success (exit status 0): an
 * HTTP response, whatever its status (no `-f`). A server that accepts and closes, or answers
 * something that is not HTTP, is a failure for curl, and so here. Upstream-compatible mode.
 */
export const httpReplyMatcher: SuccessMatcher = {
  needsReply: true,
  description: 'http-reply',
  accepts: (reply) => reply !== undefined && /^HTTP\/\d(\.\d)? \d{3}/.test(reply),
  request: (host, port) =>
    `GET / HTTP/1.1\r\nHost: ${host.includes(':') ? `[${host}]` : host}:${port}\r\nUser-Agent: kpng-test-clients\r\nAccept: */*\r\nConnection: close\r\n\r\n`,
};
