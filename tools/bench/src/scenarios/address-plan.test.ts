import { describe, expect, it } from 'vitest';
import { cidrContains, cidrSize, formatCidr, parseCidr } from '../kube/ipv4.js';
import {
  ADDRESS_PLAN,
  MAX_NODES,
  MAX_SERVICES,
  clusterIPFor,
  loadBalancerIPFor,
  nodeIPFor,
  podAddress,
  podCidrFor,
  podHostCount,
  podHostIndex,
} from './address-plan.js';

const pods = parseCidr(ADDRESS_PLAN.pods);
const nodes = parseCidr(ADDRESS_PLAN.nodes);

describe('address plan', () => {
  it('keeps ClusterIPs inside the service range and distinct', () => {
    expect(clusterIPFor(0)).toBe('198.19.0.10');
    expect(clusterIPFor(MAX_SERVICES - 1)).toBe('198.19.255.254');
    expect(() => clusterIPFor(MAX_SERVICES)).toThrow(RangeError);
  });

  it('keeps node IPs inside the node range', () => {
    expect(nodeIPFor(0)).toBe('198.18.255.1');
    expect(cidrContains(nodes, nodeIPFor(MAX_NODES - 1))).toBe(true);
    expect(() => nodeIPFor(MAX_NODES)).toThrow(RangeError);
  });

  it.each([1, 3, 100, 128, 254])('gives %i nodes disjoint pod CIDRs clear of the node range', (count) => {
    const cidrs = Array.from({ length: count }, (_, i) => podCidrFor(i, count));
    for (const [i, cidr] of cidrs.entries()) {
      const last = cidr.base + cidrSize(cidr) - 1;
      expect(cidr.base % cidrSize(cidr)).toBe(0);
      expect(cidr.base >= pods.base).toBe(true);
      expect(last < nodes.base).toBe(true);
      const next = cidrs[i + 1];
      if (next) expect(last < next.base).toBe(true);
    }
  });

  it('uses /23s for 100 nodes', () => {
    expect(formatCidr(podCidrFor(0, 100))).toBe('198.18.0.0/23');
    expect(formatCidr(podCidrFor(99, 100))).toBe('198.18.198.0/23');
  });

  it('numbers pod addresses inside their CIDR and back', () => {
    const cidr = podCidrFor(5, 100);
    expect(podHostCount(cidr)).toBe(509);
    expect(podAddress(cidr, 0)).toBe('198.18.10.2');
    const last = podAddress(cidr, podHostCount(cidr) - 1);
    expect(last).toBe('198.18.11.254');
    expect(podHostIndex(cidr, last)).toBe(508);
    expect(() => podAddress(cidr, podHostCount(cidr))).toThrow(RangeError);
  });

  it('shares LoadBalancer IPs past 254 with a new port round', () => {
    expect(loadBalancerIPFor(0)).toEqual({ ip: '203.0.113.1', round: 0 });
    expect(loadBalancerIPFor(253)).toEqual({ ip: '203.0.113.254', round: 0 });
    expect(loadBalancerIPFor(254)).toEqual({ ip: '203.0.113.1', round: 1 });
  });
});
