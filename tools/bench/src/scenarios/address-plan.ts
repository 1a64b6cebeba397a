import { cidrSize, formatCidr, intToIpv4, ipv4ToInt, type Cidr } from '../kube/ipv4.js';

/** The test plan's ranges (`docs/TESTING.md`). Nothing generated falls outside them. */
export const ADDRESS_PLAN = {
  pods: '198.18.0.0/16',
  services: '198.19.0.0/16',
  nodes: '198.18.255.0/24',
  loadBalancers: '203.0.113.0/24',
} as const;

const SERVICE_BASE = ipv4ToInt('198.19.0.0');
/** The first addresses of the range are left free (the `kubernetes` Service takes .1 in a real cluster). */
const FIRST_CLUSTER_IP_OFFSET = 10;
export const MAX_SERVICES = 65536 - FIRST_CLUSTER_IP_OFFSET - 1;

const NODE_BASE = ipv4ToInt('198.18.255.0');
export const MAX_NODES = 254;

const POD_BASE = ipv4ToInt('198.18.0.0');
/** Pod CIDRs share 198.18.0.0/16 with the node range (its last /24), so they get the 255 /24s before it. */
const POD_BLOCKS = 255;

const LB_BASE = ipv4ToInt('203.0.113.0');
const LB_ADDRESSES = 254;

export function clusterIPFor(serviceIndex: number): string {
  if (serviceIndex < 0 || serviceIndex >= MAX_SERVICES)
    throw new RangeError(`no ClusterIP for service #${serviceIndex}`);
  return intToIpv4(SERVICE_BASE + FIRST_CLUSTER_IP_OFFSET + serviceIndex);
}

export function nodeIPFor(nodeIndex: number): string {
  if (nodeIndex < 0 || nodeIndex >= MAX_NODES) throw new RangeError(`no node IP for node #${nodeIndex}`);
  return intToIpv4(NODE_BASE + 1 + nodeIndex);
}

/** Each node gets the largest aligned power-of-two run of /24s that lets `nodeCount` nodes fit. */
export function podCidrFor(nodeIndex: number, nodeCount: number): Cidr {
  if (nodeCount < 1 || nodeCount > MAX_NODES)
    throw new RangeError(`node count must be 1..${MAX_NODES}, got ${nodeCount}`);
  if (nodeIndex < 0 || nodeIndex >= nodeCount) throw new RangeError(`node #${nodeIndex} out of ${nodeCount}`);
  let blocks = 1;
  while (blocks * 2 * nodeCount <= POD_BLOCKS) blocks *= 2;
  return { base: POD_BASE + nodeIndex * blocks * 256, prefix: 24 - Math.log2(blocks) };
}

/** Usable pod addresses in a pod CIDR: the network address, the gateway (.1) and the last address are skipped. */
export function podHostCount(cidr: Cidr): number {
  return cidrSize(cidr) - 3;
}

export function podAddress(cidr: Cidr, hostIndex: number): string {
  if (hostIndex < 0 || hostIndex >= podHostCount(cidr))
    throw new RangeError(`no pod #${hostIndex} in ${formatCidr(cidr)}`);
  return intToIpv4(cidr.base + 2 + hostIndex);
}

export function podHostIndex(cidr: Cidr, address: string): number {
  return ipv4ToInt(address) - cidr.base - 2;
}

/**
 * The 203.0.113.0/24 range holds only 254 addresses, so past that LoadBalancer Services share an IP
 * (as MetalLB's allow-shared-ip does) and `round` shifts their port numbers so that every
 * (IP, protocol, port) stays unique.
 */
export function loadBalancerIPFor(lbIndex: number): { readonly ip: string; readonly round: number } {
  if (lbIndex < 0) throw new RangeError(`no LoadBalancer IP for #${lbIndex}`);
  return { ip: intToIpv4(LB_BASE + 1 + (lbIndex % LB_ADDRESSES)), round: Math.floor(lbIndex / LB_ADDRESSES) };
}
