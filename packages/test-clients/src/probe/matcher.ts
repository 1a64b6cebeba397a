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
}

/** Any completed TCP handshake is a success (what upstream's curl exit status 0 amounts to). */
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
