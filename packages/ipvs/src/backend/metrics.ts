/**
 * The IPVS backend's own metrics. Core's sync loop registers kube-proxy's `sync_proxy_rules_*`
 * family for every backend; upstream's IPVS mode adds only `..._iptables_restore_failures_total`
 * (its filtering is iptables). kpng's IPVS backend filters with nftables (the `kpng-ipvs` table,
 * written by `nft`), so a failed filtering write counts under both names: upstream's iptables one,
 * which ipvs-mode dashboards and alerts watch, and the nftables one, which says what failed (core's
 * `createIptablesRestoreFailures` and `createNftablesSyncFailures`, shared with the other
 * backends). It adds what IPVS itself is: refused netlink calls and the size of the table.
 */
import {
  createConntrackMetrics,
  createIptablesRestoreFailures,
  createNftablesSyncFailures,
  type IPFamily,
} from '@kpng/core';
import { metricsOn } from '@kpng/kit';
import { Counter, Gauge, type Registry } from 'prom-client';

export interface IpvsMetrics {
  /** A `kpng-ipvs` nft transaction failed (`kubeproxy_sync_proxy_rules_nftables_sync_failures_total` and
   *  upstream ipvs mode's `kubeproxy_sync_proxy_rules_iptables_restore_failures_total`). */
  nftFailed(family: IPFamily): void;
  /** The kernel refused a netlink call (`kpng_ipvs_netlink_failures_total{operation}`). */
  netlinkFailed(operation: string): void;
  /** After a successful sync: virtual servers, real servers, real servers draining at weight 0. */
  tableSize(family: IPFamily, virtualServers: number, realServers: number, draining: number): void;
  /** Stale UDP flows deleted after a sync (kube-proxy's `kubeproxy_conntrack_reconciler_*`). */
  conntrackCleaned(family: IPFamily, deleted: number, seconds: number): void;
}

export const NO_IPVS_METRICS: IpvsMetrics = {
  nftFailed() {},
  netlinkFailed() {},
  tableSize() {},
  conntrackCleaned() {},
};

/** Registers (or reuses, for a second backend on the same registry) the metrics. */
export function createIpvsMetrics(registry: Registry): IpvsMetrics {
  const nftFailures = createNftablesSyncFailures(registry);
  const upstreamFailures = createIptablesRestoreFailures(registry);
  const metric = metricsOn(registry);
  const netlink = metric(Counter, {
    name: 'kpng_ipvs_netlink_failures_total',
    help: 'IPVS netlink calls the kernel refused',
    labelNames: ['operation'],
  });
  const gauge = (name: string, help: string) => metric(Gauge, { name, help, labelNames: ['ip_family'] });
  const virtualServers = gauge('kpng_ipvs_virtual_servers', 'IPVS virtual servers programmed by the last sync');
  const realServers = gauge('kpng_ipvs_real_servers', 'IPVS real servers programmed by the last sync');
  const draining = gauge('kpng_ipvs_draining_real_servers', 'real servers at weight 0 waiting for their connections');
  return {
    conntrackCleaned: createConntrackMetrics(registry),
    nftFailed(family) {
      nftFailures(family);
      upstreamFailures(family);
    },
    netlinkFailed: (operation) => netlink.inc({ operation }),
    tableSize(family, vs, rs, drain) {
      virtualServers.set({ ip_family: family }, vs);
      realServers.set({ ip_family: family }, rs);
      draining.set({ ip_family: family }, drain);
    },
  };
}
