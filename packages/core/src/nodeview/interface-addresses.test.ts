import { ScriptedExecer } from '@kpng/kit/testing';
import { describe, expect, it } from 'vitest';
import {
  InterfaceAddressesError,
  MAX_INTERFACE_ADDRESSES,
  MAX_IP_ADDR_OUTPUT,
  nodePortAddressesReader,
  parseIpAddrJson,
  readInterfaceAddresses,
} from './interface-addresses.js';
import type { LocalNode } from './types.js';

/** What `ip -j addr show` prints (iproute2 6.x), trimmed to the fields the parser reads and a few it skips. */
const IP_ADDR = JSON.stringify([
  {
    ifindex: 1,
    ifname: 'lo',
    flags: ['LOOPBACK', 'UP'],
    addr_info: [
      { family: 'inet', local: '127.0.0.1', prefixlen: 8, scope: 'host' },
      { family: 'inet6', local: '::1', prefixlen: 128, scope: 'host' },
    ],
  },
  {
    ifindex: 2,
    ifname: 'eth0',
    link_type: 'ether',
    addr_info: [
      { family: 'inet', local: '192.0.2.10', prefixlen: 24, broadcast: '192.0.2.255', scope: 'global' },
      { family: 'inet', local: '192.0.2.11', prefixlen: 24, secondary: true, scope: 'global' },
      { family: 'inet6', local: '2001:DB8:0:0::0a', prefixlen: 64, scope: 'global' },
      { family: 'inet6', local: 'fe80::1', prefixlen: 64, scope: 'link' },
    ],
  },
  { ifindex: 3, ifname: 'kube-ipvs0', addr_info: [{ family: 'inet', local: '198.19.0.1', prefixlen: 32 }] },
  { ifindex: 4, ifname: 'down0', addr_info: [] },
  { ifindex: 5, ifname: 'noaddr' },
]);

describe('parseIpAddrJson', () => {
  it('keeps every interface address, canonical, distinct and sorted', () => {
    expect(parseIpAddrJson(IP_ADDR)).toEqual([
      '127.0.0.1',
      '192.0.2.10',
      '192.0.2.11',
      '198.19.0.1',
      '2001:db8::a',
      '::1',
      'fe80::1',
    ]);
    expect(parseIpAddrJson('[]')).toEqual([]);
  });

  it('skips entries of other families', () => {
    const text = JSON.stringify([{ addr_info: [{ family: 'link', local: 'whatever' }, { local: '192.0.2.1' }] }]);
    expect(parseIpAddrJson(text)).toEqual([]);
  });

  it.each([
    ['not JSON', 'ip: command failed', /not JSON/],
    ['an object, not a list', '{"addr_info":[]}', /not a list of interfaces/],
    ['an interface that is not an object', '[1]', /interface is not an object/],
    ['addr_info not a list', '[{"addr_info":"192.0.2.1"}]', /addr_info is not a list/],
    ['an address entry that is not an object', '[{"addr_info":[null]}]', /address is not an object/],
    [
      'an inet address that is not an IP',
      '[{"addr_info":[{"family":"inet","local":"192.0.2.1; rm -rf"}]}]',
      /invalid IPv4/,
    ],
    ['an inet entry with an IPv6 address', '[{"addr_info":[{"family":"inet","local":"2001:db8::1"}]}]', /invalid IPv4/],
    ['an inet6 entry with an IPv4 address', '[{"addr_info":[{"family":"inet6","local":"192.0.2.1"}]}]', /invalid IPv6/],
    ['a missing local', '[{"addr_info":[{"family":"inet"}]}]', /invalid IPv4 address undefined/],
    ['a number as local', '[{"addr_info":[{"family":"inet","local":3232235777}]}]', /invalid IPv4/],
    ['a prefix in local', '[{"addr_info":[{"family":"inet","local":"192.0.2.1/24"}]}]', /invalid IPv4/],
  ])('refuses %s with a clear error', (_name, text, message) => {
    expect(() => parseIpAddrJson(text)).toThrow(InterfaceAddressesError);
    expect(() => parseIpAddrJson(text)).toThrow(message);
  });

  it('refuses output over the size bound before parsing it, and more addresses than the count bound', () => {
    expect(() => parseIpAddrJson(' '.repeat(MAX_IP_ADDR_OUTPUT + 1))).toThrow(/output over/);
    expect(MAX_INTERFACE_ADDRESSES).toBe(65_536);
    const many = Array.from({ length: 4 }, (_, i) => ({ family: 'inet6', local: `2001:db8::${i + 1}` }));
    expect(parseIpAddrJson(JSON.stringify([{ addr_info: many }]), 4)).toHaveLength(4);
    expect(() => parseIpAddrJson(JSON.stringify([{ addr_info: many }]), 3)).toThrow(/more than 3 addresses/);
  });

  it('a hostile error message is cut short', () => {
    const text = JSON.stringify([{ addr_info: [{ family: 'inet', local: 'x'.repeat(10_000) }] }]);
    expect(() => parseIpAddrJson(text)).toThrow(/^ip -j addr: invalid IPv4 address "x{63}$/);
  });
});

describe('readInterfaceAddresses', () => {
  it('runs ip -j addr show through the exec seam, in the namespace when given', async () => {
    const execer = new ScriptedExecer([
      { argv: ['ip', '-j', 'addr', 'show'], stdin: '', result: { stdout: IP_ADDR } },
      { argv: ['ip', 'netns', 'exec', 'kpng-lab', 'ip', '-j', 'addr', 'show'], stdin: '', result: { stdout: '[]' } },
    ]);
    expect(await readInterfaceAddresses({ execer })).toContain('192.0.2.11');
    expect(await readInterfaceAddresses({ execer, netns: 'kpng-lab' })).toEqual([]);
    expect(execer.remaining).toBe(0);
  });

  it('a failing ip is an error naming its exit code and stderr', async () => {
    const execer = new ScriptedExecer([
      {
        argv: ['ip', '-j', 'addr', 'show'],
        stdin: '',
        result: { exitCode: 1, stderr: 'Cannot open netlink socket\n' },
      },
    ]);
    await expect(readInterfaceAddresses({ execer })).rejects.toThrow(
      'ip -j addr exited with 1: Cannot open netlink socket',
    );
  });
});

describe('nodePortAddressesReader', () => {
  const node: LocalNode = {
    name: 'node-a' as LocalNode['name'],
    labels: {},
    podCIDRs: [],
    addresses: ['192.0.2.10', '2001:db8::a'],
    eligible: true,
  };

  it('reads nothing when the setting matches every address', async () => {
    const execer = new ScriptedExecer([]);
    for (const setting of [[], ['0.0.0.0/0', '::/0']]) {
      expect(await nodePortAddressesReader(setting, { execer })(node)).toEqual({ IPv4: 'all', IPv6: 'all' });
    }
  });

  it('resolves the setting over the interfaces read at each call', async () => {
    const execer = new ScriptedExecer([
      { argv: ['ip', '-j', 'addr', 'show'], stdin: '', result: { stdout: IP_ADDR } },
      { argv: ['ip', '-j', 'addr', 'show'], stdin: '', result: { stdout: '[]' } },
      { argv: ['ip', '-j', 'addr', 'show'], stdin: '', result: { stdout: IP_ADDR } },
    ]);
    const cidrs = nodePortAddressesReader(['192.0.2.0/24', '127.0.0.0/8'], { execer });
    expect(await cidrs(node)).toEqual({ IPv4: ['127.0.0.1', '192.0.2.10', '192.0.2.11'], IPv6: 'all' });
    expect(await cidrs(node)).toEqual({ IPv4: [], IPv6: 'all' }); // the addresses went away
    // primary: the Node's primary IPs, where an interface has them.
    expect(await nodePortAddressesReader(['primary'], { execer })(node)).toEqual({
      IPv4: ['192.0.2.10'],
      IPv6: ['2001:db8::a'],
    });
    expect(execer.remaining).toBe(0);
  });

  it('with listEveryAddressExcept, a family matching every address is listed: not that interface, loopback or IPv6 link-local (upstream ipvs NodeIPs)', async () => {
    const shared = JSON.stringify([
      ...(JSON.parse(IP_ADDR) as unknown[]),
      // An address on kube-ipvs0 and on another interface stays (the other interface has it).
      { ifindex: 6, ifname: 'eth1', addr_info: [{ family: 'inet', local: '198.19.0.1', prefixlen: 32 }] },
    ]);
    const execer = new ScriptedExecer([
      { argv: ['ip', '-j', 'addr', 'show'], stdin: '', result: { stdout: IP_ADDR } },
      { argv: ['ip', '-j', 'addr', 'show'], stdin: '', result: { stdout: IP_ADDR } },
      { argv: ['ip', '-j', 'addr', 'show'], stdin: '', result: { stdout: shared } },
    ]);
    const every = (setting: string[]) =>
      nodePortAddressesReader(setting, { execer, listEveryAddressExcept: 'kube-ipvs0' })(node);
    expect(await every([])).toEqual({ IPv4: ['192.0.2.10', '192.0.2.11'], IPv6: ['2001:db8::a'] });
    // CIDRs of one family select over every interface (kube-ipvs0 too, as upstream's GetNodeIPs); the other family is listed.
    expect(await every(['198.19.0.0/16'])).toEqual({ IPv4: ['198.19.0.1'], IPv6: ['2001:db8::a'] });
    expect((await every(['0.0.0.0/0', '::/0'])).IPv4).toEqual(['192.0.2.10', '192.0.2.11', '198.19.0.1']);
    expect(execer.remaining).toBe(0);
  });
});
