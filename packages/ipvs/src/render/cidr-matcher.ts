import { BlockList, isIPv6 } from 'node:net';

/**
 * CIDRs as a matcher (`--ipvs-exclude-cidrs`, `nodePortAddresses`). node:net's BlockList rather than core's CIDR helpers: the
 * backend's runtime then loads no part of core (types only), which keeps it cheap to start, also
 * inside the lab's emulated VM.
 */
export function cidrMatcher(cidrs: readonly string[]): (ip: string) => boolean {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [network = '', prefix = ''] = cidr.split('/');
    list.addSubnet(network, Number(prefix), isIPv6(network) ? 'ipv6' : 'ipv4');
  }
  return (ip) => cidrs.length > 0 && list.check(ip, isIPv6(ip) ? 'ipv6' : 'ipv4');
}
