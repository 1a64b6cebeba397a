import { cidrContains, parseCIDR } from '@kpng/core';

/** CIDRs as a matcher (`--ipvs-exclude-cidrs`), over core's CIDR helpers; each CIDR is parsed once. */
export function cidrMatcher(cidrs: readonly string[]): (ip: string) => boolean {
  const networks = cidrs.flatMap((cidr) => parseCIDR(cidr) ?? []);
  return (ip) => networks.some((network) => cidrContains(network, ip));
}
