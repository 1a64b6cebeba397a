/**
 * `argv` run inside network namespace `netns` (`ip netns exec NETNS argv…`), or `argv` itself
 * when `netns` is undefined. The one place the prefix is built: every exec seam that can target a
 * namespace (nft, iptables, ipvsadm, conntrack, sysctl) goes through it.
 */
export function inNetns(netns: string | undefined, argv: readonly string[]): string[] {
  if (netns === undefined) return [...argv];
  if (netns === '' || netns.includes('/') || netns.startsWith('-') || /[\0\s]/.test(netns)) {
    throw new Error(`invalid network namespace name ${JSON.stringify(netns)}`);
  }
  return ['ip', 'netns', 'exec', netns, ...argv];
}
