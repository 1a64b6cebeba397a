import { describe, expect, test } from 'vitest';
import { ADDRESS_PLAN, podAddresses } from './address-plan.js';
import { hostCommands, linkCommands, podCommands } from './topology.js';

/** Safety net: the lab must only ever configure documentation/benchmark ranges. */
function isLabAddress(address: string): boolean {
  if (address.includes(':')) return /^2001:db8:/i.test(address) || /^fe80::/i.test(address);
  const [a, b, c] = address.split('.').map(Number);
  return (a === 198 && (b === 18 || b === 19)) || (a === 203 && b === 0 && c === 113);
}

const ADDRESS = /(?:\d{1,3}\.){3}\d{1,3}|[0-9a-f]{1,4}(?::[0-9a-f]{0,4}){2,7}/gi;

describe('topology commands', () => {
  const pods = [0, 1].map((i) => ({
    host: 'node' as const,
    ...podAddresses('node', i),
    namespace: { name: `kpng-t-1-p${i}` },
  }));
  const everything = [
    ...hostCommands('node', 2),
    ...hostCommands('remote', 1),
    ...pods.flatMap(podCommands),
    ...podCommands({ host: 'remote', ...podAddresses('remote', 0) }),
  ];

  test('use only lab addresses', () => {
    const addresses = everything.flatMap((command) => command.match(ADDRESS) ?? []);
    expect(addresses.length).toBeGreaterThan(20);
    expect(addresses.filter((address) => !isLabAddress(address))).toEqual([]);
  });

  test('a pod routes everything through its node', () => {
    expect(podCommands(pods[0] as (typeof pods)[0])).toEqual([
      'link set eth0 up',
      'addr add 198.18.1.10/32 dev eth0',
      'addr add 2001:db8:1::10/128 dev eth0 nodad',
      'route add 198.18.1.1/32 dev eth0 scope link',
      'route add default via 198.18.1.1 dev eth0 src 198.18.1.10',
      'route add default via fe80::1 dev eth0',
    ]);
  });

  test('the node routes each pod to its veth and the remote pod range to the remote node', () => {
    const node = hostCommands('node', 2);
    expect(node).toContain('route add 198.18.1.11/32 dev p1');
    expect(node).toContain('route add 2001:db8:1::11/128 dev p1');
    expect(node).toContain(`route add ${ADDRESS_PLAN.remote.podCidrV4} via ${ADDRESS_PLAN.remote.ipv4}`);
    expect(hostCommands('remote', 0)).toContain(`route add default via ${ADDRESS_PLAN.node.ipv4}`);
  });

  test('veths are created from the host with the pod end named eth0 in the pod namespace', () => {
    expect(linkCommands(pods, [['ext0', 'kpng-t-1-ext', 'eth0']])).toEqual([
      'link add p0 type veth peer name eth0 netns kpng-t-1-p0',
      'link add p1 type veth peer name eth0 netns kpng-t-1-p1',
      'link add ext0 type veth peer name eth0 netns kpng-t-1-ext',
    ]);
  });
});

describe('podAddresses', () => {
  test.each([
    ['node', 0, '198.18.1.10', '2001:db8:1::10'],
    ['node', 5, '198.18.1.15', '2001:db8:1::15'],
    ['remote', 0, '198.18.2.10', '2001:db8:2::10'],
    ['remote', 6, '198.18.2.16', '2001:db8:2::16'],
  ] as const)('%s pod %i is %s / %s', (host, index, ipv4, ipv6) => {
    expect(podAddresses(host, index)).toEqual({ ipv4, ipv6 });
  });

  test.each([-1, 201, 1.5])('refuses index %d', (index) => {
    expect(() => podAddresses('node', index)).toThrow(/out of range/);
  });
});
