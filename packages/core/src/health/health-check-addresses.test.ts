import { describe, expect, it } from 'vitest';
import { aNodeLocalState } from '../../test/support/local-state-fixtures.js';
import { resolveNodePortAddresses } from '../nodeview/node-port-addresses.js';
import type { LocalNode } from '../nodeview/types.js';
import { healthCheckAddressesFor, healthCheckAddressesOn } from './health-check-addresses.js';

const node: LocalNode = {
  ...aNodeLocalState().node,
  addresses: ['198.18.0.10', '2001:db8::10', '198.18.1.10', '203.0.113.7'],
};
/** The host's interfaces hold the Node's addresses, loopback and a secondary NIC the Node object omits. */
const interfaces: readonly string[] = [...node.addresses, '127.0.0.1', '::1', '198.18.7.7'];

/** `node` as the sync stage hands it over: `nodePortAddresses` resolved over the interfaces. */
function synced(setting: readonly string[], everyAddress?: readonly string[]): LocalNode {
  return { ...node, nodePortAddresses: resolveNodePortAddresses(setting, interfaces, node.addresses, everyAddress) };
}

describe('healthCheckAddressesOn (nodePortAddresses, as the sync stage resolved it)', () => {
  it.each<[string, string[], readonly string[]]>([
    ['unset: every address', [], ['0.0.0.0']],
    ['primary: the first address of each family, not 0.0.0.0', ['primary'], ['198.18.0.10', '2001:db8::10']],
    [
      'CIDRs: the interface addresses inside them (a secondary NIC too, not only the Node object)',
      ['198.18.0.0/16', '2001:db8::/32'],
      ['198.18.0.10', '198.18.1.10', '198.18.7.7', '2001:db8::10'],
    ],
    ['a narrower CIDR', ['203.0.113.0/24'], ['203.0.113.7']],
    ['loopback, when a CIDR selects it', ['127.0.0.0/8'], ['127.0.0.1']],
    ['a zero-length prefix: every address', ['0.0.0.0/0'], ['0.0.0.0']],
    ['a zero-length prefix beside a CIDR: every address', ['0.0.0.0/0', '2001:db8::/32'], ['0.0.0.0']],
    ['a CIDR no interface is in: none (no port opened)', ['192.0.2.0/24'], []],
  ])('%s', (_name, setting, expected) => {
    expect(healthCheckAddressesOn(healthCheckAddressesFor(setting), synced(setting))).toEqual(expected);
  });

  it('takes only the families the setting selects, not a family the backend had listed whole (ipvs)', () => {
    const setting = ['198.18.0.0/16'];
    const listed = synced(setting, interfaces);
    expect(listed.nodePortAddresses?.IPv6).toEqual(['2001:db8::10']);
    expect(healthCheckAddressesOn(healthCheckAddressesFor(setting), listed)).toEqual([
      '198.18.0.10',
      '198.18.1.10',
      '198.18.7.7',
    ]);
  });

  it('opens nothing before the sync stage resolved the setting (or before a node is known)', () => {
    const selection = healthCheckAddressesFor(['primary']);
    expect(healthCheckAddressesOn(selection, node)).toEqual([]);
    expect(healthCheckAddressesOn(selection, undefined)).toEqual([]);
    // A setting that selects in no family needs no resolution: every address.
    expect(healthCheckAddressesOn(selection, { ...node, addresses: ['127.0.0.1'] })).toEqual(['0.0.0.0']);
  });

  it('passes fixed addresses and functions of the node through', () => {
    expect(healthCheckAddressesOn(['127.0.0.1'], undefined)).toEqual(['127.0.0.1']);
    expect(healthCheckAddressesOn((n) => n.addresses.slice(0, 1), node)).toEqual(['198.18.0.10']);
  });
});
