/**
 * The lab's addresses (TESTING.md "The address plan"): documentation and benchmarking ranges
 * only, and only ever inside the lab's namespaces.
 *
 * Pods hang off their node by routed veths (one /32 and /128 per pod, like Calico), not a
 * bridge: every pod-to-pod packet then crosses the node's IP stack, where the proxy's rules
 * apply, without needing br_netfilter. A pod's gateway is an address on its node's loopback
 * (IPv4) or `fe80::1` on the node end of its veth (IPv6).
 */
export const ADDRESS_PLAN = {
  /** The node running the proxy under test. */
  node: {
    ipv4: '198.18.255.1',
    ipv6: '2001:db8:ff::1',
    podCidrV4: '198.18.1.0/24',
    podCidrV6: '2001:db8:1::/64',
    podGatewayV4: '198.18.1.1',
    podGatewayV6: '2001:db8:1::1',
  },
  /** The other node, hosting "pod elsewhere" endpoints; routes everything else via the node. */
  remote: {
    ipv4: '198.18.255.2',
    ipv6: '2001:db8:ff::2',
    podCidrV4: '198.18.2.0/24',
    podCidrV6: '2001:db8:2::/64',
    podGatewayV4: '198.18.2.1',
    podGatewayV6: '2001:db8:2::1',
  },
  /** The lab node network between node and remote. */
  nodeNetworkV4: '198.18.255.0/24',
  nodeNetworkV6: '2001:db8:ff::/64',
  /** The external client, on a small link so external/LB IPs below are routed to the node. */
  external: { ipv4: '203.0.113.2', ipv6: '2001:db8:ee::2', nodeSideV4: '203.0.113.1', nodeSideV6: '2001:db8:ee::1' },
  externalLinkV4: '203.0.113.0/28',
  externalLinkV6: '2001:db8:ee::/64',
  /** For Services: cluster IPs, and external / LoadBalancer IPs the external client can reach. */
  serviceCidrV4: '198.19.0.0/16',
  serviceCidrV6: '2001:db8:5e::/64',
  loadBalancerV4: '203.0.113.64/26',
  loadBalancerV6: '2001:db8:eb::/64',
} as const;

/** The n-th pod's addresses on a host (n from 0): `.10 + n` in the host's pod range. */
export function podAddresses(host: 'node' | 'remote', index: number): { readonly ipv4: string; readonly ipv6: string } {
  if (!Number.isInteger(index) || index < 0 || index > 200) throw new Error(`pod index ${index} out of range 0..200`);
  const subnet = host === 'node' ? 1 : 2;
  return { ipv4: `198.18.${subnet}.${10 + index}`, ipv6: `2001:db8:${subnet}::${(0x10 + index).toString(16)}` };
}
