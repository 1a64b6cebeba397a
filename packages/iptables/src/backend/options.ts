import type { ConntrackCleaner, Logger } from '@kpng/core';
import type { Registry } from 'prom-client';
import type { Execer } from '../iptables/exec.js';
import type { IptablesConfigInput } from '../render/config.js';
import type { IptablesMetrics } from './metrics.js';

export interface IptablesBackendOptions extends IptablesConfigInput {
  /** Where processes (`iptables-restore`, `iptables`, `conntrack`...) start. Default: execa. */
  readonly execer?: Execer;
  /** Program the tables of this network namespace (`ip netns add`'s NAME, entered with `nsenter --net=/run/netns/NAME …`). */
  readonly netns?: string;
  /** Stale UDP flow cleanup. Default: the `conntrack` tool through `execer`; `false` disables it. */
  readonly conntrack?: ConntrackCleaner | false;
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
