import { ADDRESS_PLAN, podAddresses } from './address-plan.js';

/** `ip -batch` commands for the lab topology; see `ADDRESS_PLAN` for the shape. */

/** No duplicate address detection: addresses are usable at once (no tentative state). */
export const NO_DAD_SYSCTLS = {
  'net.ipv6.conf.all.accept_dad': 0,
  'net.ipv6.conf.default.accept_dad': 0,
} as const;

/** Node and remote forward between their links; strict reverse-path filtering is off. */
export const ROUTER_SYSCTLS = {
  'net.ipv4.ip_forward': 1,
  'net.ipv6.conf.all.forwarding': 1,
  'net.ipv4.conf.all.rp_filter': 0,
  'net.ipv4.conf.default.rp_filter': 0,
} as const;

/**
 * veth pairs created from a host namespace: `p<i>` to each of its pods (whose end is `eth0`),
 * plus any extra `[local, peerNamespace, peerName]` links.
 */
export function linkCommands(
  pods: readonly { readonly namespace: { readonly name: string } }[],
  extra: readonly (readonly [string, string, string])[],
): string[] {
  return [
    ...pods.map((pod, i) => `link add p${i} type veth peer name eth0 netns ${pod.namespace.name}`),
    ...extra.map(
      ([local, peerNamespace, peerName]) => `link add ${local} type veth peer name ${peerName} netns ${peerNamespace}`,
    ),
  ];
}

/** Addresses and routes of the node or the remote node, for `podCount` pods. */
export function hostCommands(host: 'node' | 'remote', podCount: number): string[] {
  const plan = ADDRESS_PLAN[host];
  const other = ADDRESS_PLAN[host === 'node' ? 'remote' : 'node'];
  const link = host === 'node' ? 'remote0' : 'node0';
  const commands = [
    `addr add ${plan.podGatewayV4}/32 dev lo`,
    `addr add ${plan.podGatewayV6}/128 dev lo`,
    `link set ${link} up`,
    `addr add ${plan.ipv4}/24 dev ${link}`,
    `addr add ${plan.ipv6}/64 dev ${link} nodad`,
  ];
  for (let i = 0; i < podCount; i++) {
    const pod = podAddresses(host, i);
    commands.push(
      `link set p${i} up`,
      `addr add fe80::1/64 dev p${i} nodad`,
      `route add ${pod.ipv4}/32 dev p${i}`,
      `route add ${pod.ipv6}/128 dev p${i}`,
    );
  }
  if (host === 'node') {
    commands.push(
      `route add ${other.podCidrV4} via ${other.ipv4}`,
      `route add ${other.podCidrV6} via ${other.ipv6}`,
      'link set ext0 up',
      `addr add ${ADDRESS_PLAN.external.nodeSideV4}/28 dev ext0`,
      `addr add ${ADDRESS_PLAN.external.nodeSideV6}/64 dev ext0 nodad`,
    );
  } else {
    // The remote node reaches everything else (node pods, clients, Services) through the node.
    commands.push(`route add default via ${other.ipv4}`, `route add default via ${other.ipv6}`);
  }
  return commands;
}

/** A pod: its /32 and /128, an on-link route to its gateway, default routes through its node. */
export function podCommands(pod: {
  readonly host: 'node' | 'remote';
  readonly ipv4: string;
  readonly ipv6: string;
}): string[] {
  const plan = ADDRESS_PLAN[pod.host];
  return [
    'link set eth0 up',
    `addr add ${pod.ipv4}/32 dev eth0`,
    `addr add ${pod.ipv6}/128 dev eth0 nodad`,
    `route add ${plan.podGatewayV4}/32 dev eth0 scope link`,
    `route add default via ${plan.podGatewayV4} dev eth0 src ${pod.ipv4}`,
    'route add default via fe80::1 dev eth0',
  ];
}

/**
 * Default routes for the node through the external client, as a real node has: without them a
 * packet to a Service address the rules did not DNAT dies in routing (net unreachable) before
 * the proxy's filter rules can reject or drop it. The external client does not forward, so such
 * packets end there, as they would on the Internet.
 */
export function nodeDefaultRouteCommands(): string[] {
  return [`route add default via ${ADDRESS_PLAN.external.ipv4}`, `route add default via ${ADDRESS_PLAN.external.ipv6}`];
}
