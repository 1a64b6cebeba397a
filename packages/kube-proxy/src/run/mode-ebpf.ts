/**
 * ebpf mode, kpng's extension (issue 29): `@kpng/ebpf` balances TCP/UDP ClusterIPs, external and
 * LB IPs at connect()/sendmsg() in cgroup BPF programs attached to the node's cgroup v2 root (the
 * first `cgroup2` mount in /proc/mounts); nftables mode's backend, north-south only, programs what
 * enters the node (NodePorts, external/LB IPs, source ranges, masquerade) from the nftables section.
 */
import { explainEbpf, readCgroupV2Mounts, type EbpfFlagConfig } from '@kpng/ebpf';
import { nftModuleOptions, removeNftTables } from './mode-nftables.js';
import type { ProxyMode } from './modes.js';
import { nftTablesOf, tableName } from './nft-options.js';

export const mode: ProxyMode = {
  backendOptions(config, ctx) {
    // (A lab's KPNG_NETNS would still attach to this machine's cgroup root: refused.)
    if (ctx.netns !== undefined)
      throw new Error(
        '--proxy-mode ebpf attaches to the cgroup v2 root, not a network namespace: KPNG_NETNS is not supported',
      );
    const [cgroup] = readCgroupV2Mounts();
    if (cgroup === undefined) throw new Error('--proxy-mode ebpf needs a cgroup v2 mount (none in /proc/mounts)');
    const { options: nft, warnings } = nftModuleOptions(config, ctx);
    // The maps balance TCP/UDP ClusterIPs at the socket; nft writes nothing for them.
    const options: EbpfFlagConfig = {
      cgroup,
      families: ['IPv4', 'IPv6'],
      maxEntries: {},
      nft: { ...nft, scope: 'north-south' },
    };
    return { options, warnings };
  },
  // The BPF programs' links and maps belong to the process (nothing pinned): only tables remain.
  async cleanup(config, ctx) {
    if ((ctx.platform ?? process.platform) === 'win32') return [];
    return removeNftTables(nftTablesOf(config), ctx);
  },
  // The maps of the programs on the cgroup v2 root (as create attaches them), then the packet path's tables.
  explain(config, service, ctx) {
    // Without a cgroup v2 mount the report says so (after the Service lookup), and nft's still follows.
    const cgroup = readCgroupV2Mounts()[0] ?? '/sys/fs/cgroup';
    return explainEbpf({ cgroup, nft: { families: ['IPv4', 'IPv6'], tableName: tableName(config) } }, service, ctx);
  },
};
