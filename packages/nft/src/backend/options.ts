import type { ConntrackCleaner, Logger } from '@kpng/core';
import type { Registry } from 'prom-client';
import type { Execer } from '@kpng/kit';
import type { Nft } from '@kpng/nftables';
import type { NftConfigInput } from '../render/config.js';
import type { NftMetrics } from './metrics.js';

/**
 * A full s10k transaction takes seconds (with its listing; docs/PERFORMANCE.md, "Figures behind choices in the code"): a minute is far beyond
 * any legitimate write, and short enough that a hung one is ended before an operator would
 * restart the node's proxy by hand.
 */
export const DEFAULT_WRITE_TIMEOUT_MS = 60_000;

export interface NftBackendOptions extends NftConfigInput {
  /** The nftables seam. Default: a real `nft` client (through `execer`, inside `netns`), created in `setup()`. */
  readonly nft?: Nft;
  /** Where processes (`nft`, `conntrack`) are started. Default: the kit's `processExecer`. */
  readonly execer?: Execer;
  /** Program the tables of this network namespace (`ip netns exec NAME …`). */
  readonly netns?: string;
  /**
   * Run `nft` from one long-lived shell started at setup (inside `netns`) rather than spawning
   * `ip netns exec … nft` from this process per transaction (default true: a one-change sync
   * then costs a shell's fork of `nft`, not a fork of this process; docs/PERFORMANCE.md, "Figures behind choices in the code"). `close()` ends the shell.
   */
  readonly nftShell?: boolean;
  /**
   * Kill an `nft` command (a transaction, a check, a listing) still running after this many ms
   * (default {@link DEFAULT_WRITE_TIMEOUT_MS}): the sync fails (counted, also in
   * `kpng_sync_write_timeouts_total`), the shell is restarted and the retry rewrites the tables.
   * Ignored with `nft`.
   */
  readonly writeTimeoutMs?: number;
  /** Stale UDP flow cleanup. Default: the `conntrack` tool through `execer`; `false` disables it. */
  readonly conntrack?: ConntrackCleaner | false;
  /** Metrics: an NftMetrics, or a prom-client Registry to register kube-proxy's nftables metrics on. */
  readonly metrics?: NftMetrics | Registry;
  readonly log?: Logger;
  /**
   * How long a full sync's rendering and writing run before giving the event loop a turn
   * (default 10 ms): a big first sync must not hold health and metrics requests for seconds.
   */
  readonly turnBudgetMs?: number;
}
