import { describe, expect, it } from 'vitest';
import { resolveNodePortAddresses, type NodePortAddresses } from './node-port-addresses.js';

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
