import type { ConntrackCleaner, Logger } from '@kpng/core';
import type { Execer } from '@kpng/kit';
import type { Nft } from '@kpng/nftables';
import type { Registry } from 'prom-client';
import type { IpvsKernel } from '../ipvs/seam.js';
import type { IpvsConfig } from '../render/options.js';
import type { IpvsMetrics } from './metrics.js';

export interface IpvsBackendOptions {
  readonly config?: Partial<IpvsConfig>;
  /** Program this network namespace (`ip netns` name): IPVS, the dummy link, nftables, sysctls. */
  readonly netns?: string;
  /** The kernel seam; default `NetlinkIpvs` in `netns`. Tests pass `FakeIpvs`. */
  readonly kernel?: IpvsKernel;
  /** The nftables seam; default an `NftClient` in `netns`. Tests pass `FakeNft`. */
  readonly nft?: Nft;
  /** Runs `ip` and `sysctl`; default the kit's `processExecer`. */
  readonly execer?: Execer;
  /** How often real servers at weight 0 are checked for remaining connections; default 30 s. */
  readonly drainIntervalMs?: number;
  /** How many virtual servers' real servers one drift check reads (in turn); default 512. */
  readonly driftWindow?: number;
  /** Where the backend's metrics go (the program's registry, served on /metrics); none when absent. */
  readonly metrics?: Registry | IpvsMetrics;
  /**
   * How long one `nft`, `ip` or `sysctl` command may run before it is killed and the sync fails as
   * a write timeout (retried in full); default 60 s. IPVS itself is netlink, in process.
   */
  readonly writeTimeoutMs?: number;
  /**
   * How long a sync's rendering, diffing and writing run before giving the event loop a turn
   * (default 10 ms): an s10k sync must not hold health and metrics requests for a second.
   */
  readonly turnBudgetMs?: number;
  /** The kernel release the sysctls are chosen for (conn_reuse_mode); default this host's (`uname -r`). */
  readonly kernelRelease?: string;
  /** Core's structured logger; core's own (`backend="ipvs"`) when absent, as the nft and iptables backends do. */
  readonly logger?: Logger;
  /**
   * Stale UDP flow cleanup after each successful sync (upstream's ipvs mode runs the same
   * `CleanStaleEntries`). Default: the `conntrack` tool through `execer` in `netns`; `false` disables it.
   */
  readonly conntrack?: ConntrackCleaner | false;
}
