/** A Service's addresses as one single-family proxier sees them (semantics 3.4-3.6, 3.17). */
import type { IPFamily, ServiceModel } from '../model/types.js';
import { cidrContains, familyOf, hostCidr } from './ip.js';
import { withoutNestedCIDRs } from '../util/ip.js';
import type { FamilyAddresses } from './types.js';

/**
 * @param nodeAddresses the node's addresses; the first of `family` is its primary IP, the one
 *   upstream checks against the source ranges.
 */
export function familyAddresses(
  svc: ServiceModel,
  family: IPFamily,
  clusterIP: string,
  nodeAddresses: readonly string[],
): FamilyAddresses {
  const ofFamily = (ip: string): boolean => familyOf(ip) === family;
  const externalIPs = svc.externalIPs.filter(ofFamily);
  const loadBalancerIPs = svc.loadBalancerIPs.filter(ofFamily);
  const ranges = svc.loadBalancerSourceRanges.filter(ofFamily);
  return {
    clusterIP,
    externalIPs,
    loadBalancerIPs,
    loadBalancerSourceRanges: withoutNestedCIDRs(
      withHairpinSources(ranges, loadBalancerIPs, nodeAddresses.find(ofFamily)),
    ),
  };
}

/**
 * A VIP is often bound locally, so a request from this node to its own load-balancer IP loops back
 * with the VIP as source: when the node's IP is itself allowed, allow the VIPs too.
 */
function withHairpinSources(
  ranges: readonly string[],
  loadBalancerIPs: readonly string[],
  nodeIP: string | undefined,
): readonly string[] {
  if (nodeIP === undefined || loadBalancerIPs.length === 0) return ranges;
  if (!ranges.some((cidr) => cidrContains(cidr, nodeIP))) return ranges;
  const all = new Set([...ranges, ...loadBalancerIPs.map(hostCidr)]);
  return [...all].sort();
}
