export interface InNetnsOptions {
  /**
   * `'ip'` (default): `ip netns exec NETNS argv…`, which also gives the command the namespace's
   * own /sys and /etc/netns/NETNS files. `'nsenter'`: `nsenter --net=/run/netns/NETNS argv…`,
   * which enters the network namespace only (no mount namespace, no /sys remount): enough for a
   * tool that speaks netlink or reads /proc/sys/net (iptables), at a fraction of the cost per process.
   */
  readonly via?: 'ip' | 'nsenter';
}

/**
 * `argv` run inside network namespace `netns` (`ip netns add`'s NAME), or `argv` itself when
 * `netns` is undefined. The one place the prefix is built: every exec seam that can target a
 * namespace (nft, iptables, ipvsadm, ip, conntrack, sysctl) goes through it. The name is checked
 * so that it can only ever name a file in /run/netns.
 */
export function inNetns(netns: string | undefined, argv: readonly string[], options: InNetnsOptions = {}): string[] {
  if (netns === undefined) return [...argv];
  if (
    netns === '' ||
    netns === '.' ||
    netns === '..' ||
    netns.includes('/') ||
    netns.startsWith('-') ||
    /[\0\s]/.test(netns)
  ) {
    throw new Error(`invalid network namespace name ${JSON.stringify(netns)}`);
  }
  if (options.via === 'nsenter') return ['nsenter', `--net=/run/netns/${netns}`, ...argv];
  return ['ip', 'netns', 'exec', netns, ...argv];
}
