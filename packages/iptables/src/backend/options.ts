import type { ConntrackCleaner, Logger } from '@kpng/core';
import type { Registry } from 'prom-client';
import type { Execer } from '@kpng/kit';
import type { NfacctTool } from '../iptables/nfacct.js';
import type { IptablesConfigInput } from '../render/config.js';
import type { IptablesMetrics } from './metrics.js';

/**
 * Five minutes: an s10k iptables-legacy restore takes tens of seconds, more on a loaded machine
 * (docs/PERFORMANCE.md, "Figures behind choices in the code"), and a timeout shorter than a legitimate restore would kill it on every retry, so
 * the node would never converge. A hung restore is still ended, where before it held the sync loop
 * for good.
 */
export const DEFAULT_WRITE_TIMEOUT_MS = 300_000;

export interface IptablesBackendOptions extends IptablesConfigInput {
  /** Where processes (`iptables-restore`, `iptables`, `conntrack`...) start. Default: the kit's `processExecer`. */
  readonly execer?: Execer;
  /** Program the tables of this network namespace (`ip netns add`'s NAME, entered with `nsenter --net=/run/netns/NAME …`). */
  readonly netns?: string;
  /**
   * Kill an iptables command (a restore, a save, a check) still running after this many ms
   * (default {@link DEFAULT_WRITE_TIMEOUT_MS}): the sync fails (counted, also in
   * `kpng_sync_write_timeouts_total`) and the retry is a full restore.
   */
  readonly writeTimeoutMs?: number;
  /** Stale UDP flow cleanup. Default: the `conntrack` tool through `execer`; `false` disables it. */
  readonly conntrack?: ConntrackCleaner | false;
  /**
   * Upstream's nfacct counters (created at the first sync, matched in rules, read for /metrics).
   * Default: the `nfacct` tool through `execer`; `false` leaves them out.
   */
  readonly nfacct?: NfacctTool | false;
  /** IptablesMetrics, or a prom-client Registry to register kube-proxy's iptables metrics on. */
  readonly metrics?: IptablesMetrics | Registry;
  readonly log?: Logger;
  /** A partial sync first checks that KUBE-PROXY-CANARY still exists when the last check is older than this. Default 30 s (upstream's syncPeriod). */
  readonly canaryIntervalMs?: number;
  /** Warn at start on iptables-nft hosts past this many nat rules (default NFT_FLAVOUR_RULE_LIMIT). */
  readonly nftFlavourRuleLimit?: number;
  /** Milliseconds now (tests). */
  readonly now?: () => number;
}
