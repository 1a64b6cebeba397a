import { describe, expect, it } from 'vitest';
import {
  nodePortAddressesFor,
  nodePortAddressTest,
  nodePortSelection,
  resolveNodePortAddresses,
  type NodePortAddresses,
} from './node-port-addresses.js';
import type { NodeName } from '../model/types.js';
import type { LocalNode } from './types.js';

/** The host's interfaces: a primary NIC, a secondary NIC, a VIP, a bridge, loopback (both families). */
const INTERFACES = [
  '127.0.0.1',
  '198.18.0.10',
  '198.18.1.10',
  '203.0.113.7',
  '198.18.9.1',
  '::1',
  '2001:db8::10',
  '2001:db8:1::10',
];
/** The Node object's addresses (primary first per family): fewer than the interfaces hold. */
const NODE_IPS = ['198.18.0.10', '2001:db8::10'];

describe('resolveNodePortAddresses (upstream nodePortAddresses)', () => {
  it.each<[string, string[], string[], string[], NodePortAddresses]>([
    ['unset: every address of both families', [], INTERFACES, NODE_IPS, { IPv4: 'all', IPv6: 'all' }],
    [
      'primary: the Node IP of each family, when an interface holds it',
      ['primary'],
      INTERFACES,
      NODE_IPS,
      { IPv4: ['198.18.0.10'], IPv6: ['2001:db8::10'] },
    ],
    [
      'primary on a single-stack node: the other family matches all',
      ['primary'],
      INTERFACES,
      ['198.18.0.10'],
      { IPv4: ['198.18.0.10'], IPv6: 'all' },
    ],
    [
      'primary: a loopback Node IP is not a primary IP',
      ['primary'],
      INTERFACES,
      ['127.0.0.1', '2001:db8::10'],
      { IPv4: 'all', IPv6: ['2001:db8::10'] },
    ],
    [
      'primary: a Node IP no interface holds selects nothing',
      ['primary'],
      ['198.18.5.5'],
      ['198.18.0.10'],
      { IPv4: [], IPv6: 'all' },
    ],
    [
      'CIDRs select interface addresses (secondary NICs, VIPs), not only the Node IPs',
      ['198.18.0.0/16', '2001:db8::/32'],
      INTERFACES,
      NODE_IPS,
      { IPv4: ['198.18.0.10', '198.18.1.10', '198.18.9.1'], IPv6: ['2001:db8:1::10', '2001:db8::10'] },
    ],
    [
      'CIDRs of one family: the other family matches all',
      ['203.0.113.0/24'],
      INTERFACES,
      NODE_IPS,
      { IPv4: ['203.0.113.7'], IPv6: 'all' },
    ],
    [
      'a zero-length prefix matches all of its family',
      ['198.18.0.0/24', '0.0.0.0/0', '2001:db8:1::/48'],
      INTERFACES,
      NODE_IPS,
      { IPv4: 'all', IPv6: ['2001:db8:1::10'] },
    ],
    ['loopback CIDR: loopback only', ['127.0.0.0/8'], INTERFACES, NODE_IPS, { IPv4: ['127.0.0.1'], IPv6: 'all' }],
    [
      'a CIDR no interface is in selects nothing (not all)',
      ['192.0.2.0/24'],
      INTERFACES,
      NODE_IPS,
      { IPv4: [], IPv6: 'all' },
    ],
    [
      'duplicates and non-canonical interface text are folded',
      ['2001:db8::/32'],
      ['2001:DB8::10', '2001:db8:0::10', 'not-an-ip'],
      NODE_IPS,
      { IPv4: 'all', IPv6: ['2001:db8::10'] },
    ],
    ['text that is not a CIDR selects nothing', ['nonsense'], INTERFACES, NODE_IPS, { IPv4: 'all', IPv6: 'all' }],
  ])('%s', (_name, setting, interfaces, nodeIPs, expected) => {
    expect(resolveNodePortAddresses(setting, interfaces, nodeIPs)).toEqual(expected);
  });
});

describe('resolveNodePortAddresses with everyAddress (upstream ipvs mode lists its NodePort addresses)', () => {
  const every = [...INTERFACES, 'fe80::1', '169.254.3.4', 'not an address'];
  it('a family matching all gets every listed address of it, without loopback and IPv6 link-local', () => {
    expect(resolveNodePortAddresses([], INTERFACES, NODE_IPS, every)).toEqual({
      IPv4: ['169.254.3.4', '198.18.0.10', '198.18.1.10', '198.18.9.1', '203.0.113.7'],
      IPv6: ['2001:db8:1::10', '2001:db8::10'],
    });
  });
  it('a family with CIDRs still selects among the interfaces', () => {
    expect(resolveNodePortAddresses(['198.18.1.0/24'], INTERFACES, NODE_IPS, every)).toEqual({
      IPv4: ['198.18.1.10'],
      IPv6: ['2001:db8:1::10', '2001:db8::10'],
    });
  });
});

describe('nodePortAddressesFor / nodePortAddressTest (what backends read off the node view)', () => {
  const base: LocalNode = { name: 'n' as NodeName, labels: {}, podCIDRs: [], addresses: NODE_IPS, eligible: true };
  const resolved: LocalNode = { ...base, nodePortAddresses: { IPv4: ['198.18.0.10'], IPv6: 'all' } };

  it('reads the resolution; nothing resolved means every local address', () => {
    expect(nodePortAddressesFor(resolved, 'IPv4')).toEqual(['198.18.0.10']);
    expect(nodePortAddressesFor(resolved, 'IPv6')).toBe('all');
    expect(nodePortAddressesFor(base, 'IPv4')).toBe('all');
  });

  it('a listed family tests membership (canonical text); an `all` family accepts any address', () => {
    const v4 = nodePortAddressTest(resolved, 'IPv4');
    expect(v4('198.18.0.10')).toBe(true);
    expect(
      nodePortAddressTest(
        { ...base, nodePortAddresses: { IPv4: 'all', IPv6: ['2001:db8::10'] } },
        'IPv6',
      )('2001:db8:0::10'),
    ).toBe(true);
    expect(v4('198.18.1.10')).toBe(false);
    expect(v4('not an address')).toBe(false);
    const v6 = nodePortAddressTest(resolved, 'IPv6');
    expect(v6('2001:db8:0:0::99')).toBe(true);
    const none = nodePortAddressTest({ ...base, nodePortAddresses: { IPv4: [], IPv6: 'all' } }, 'IPv4');
    expect(none('198.18.0.10')).toBe(false);
  });
});

describe('nodePortSelection (the setting per family, before any interface is read)', () => {
  it.each<[string, string[], string[], ReturnType<typeof nodePortSelection>]>([
    ['unset: all', [], NODE_IPS, { IPv4: 'all', IPv6: 'all' }],
    [
      'primary: host CIDRs of the Node IPs',
      ['primary'],
      NODE_IPS,
      { IPv4: ['198.18.0.10/32'], IPv6: ['2001:db8::10/128'] },
    ],
    [
      'primary, single-stack: the other family all',
      ['primary'],
      ['198.18.0.10'],
      { IPv4: ['198.18.0.10/32'], IPv6: 'all' },
    ],
    [
      'primary, loopback Node IP: all',
      ['primary'],
      ['127.0.0.1', '2001:db8::10'],
      { IPv4: 'all', IPv6: ['2001:db8::10/128'] },
    ],
    [
      'CIDRs: canonical, per family; a family without one matches all',
      ['198.18.0.7/24', '198.18.0.0/24'],
      NODE_IPS,
      { IPv4: ['198.18.0.0/24'], IPv6: 'all' },
    ],
    [
      'a zero-length CIDR matches all',
      ['0.0.0.0/0', '198.18.0.0/24', '2001:db8::/64'],
      NODE_IPS,
      { IPv4: 'all', IPv6: ['2001:db8::/64'] },
    ],
  ])('%s', (_name, setting, nodeIPs, expected) => {
    expect(nodePortSelection(setting, nodeIPs)).toEqual(expected);
  });
});
