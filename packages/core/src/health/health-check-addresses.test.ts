import { describe, expect, it } from 'vitest';
import { aNodeLocalState } from '../../test/support/local-state-fixtures.js';
import type { LocalNode } from '../nodeview/types.js';
import { healthCheckAddressesFor } from './health-check-addresses.js';

const node: LocalNode = {
  ...aNodeLocalState().node,
  addresses: ['198.18.0.10', '2001:db8::10', '198.18.1.10', '203.0.113.7'],
};
/** The host's interfaces hold the Node's addresses, loopback and a secondary NIC the Node object omits. */
const interfaces = (): readonly string[] => [...node.addresses, '127.0.0.1', '::1', '198.18.7.7'];

describe('healthCheckAddressesFor (nodePortAddresses)', () => {
  it("reads this process's interfaces by default", () => {
    const spec = healthCheckAddressesFor(['127.0.0.0/8']);
    expect(typeof spec === 'function' ? spec(node) : spec).toEqual(['127.0.0.1']);
  });

  it.each<[string, string[], readonly string[]]>([
    ['unset: every address', [], ['0.0.0.0']],
    ['primary: the first address of each family, not 0.0.0.0', ['primary'], ['198.18.0.10', '2001:db8::10']],
    [
      'CIDRs: the interface addresses inside them (a secondary NIC too, not only the Node object)',
      ['198.18.0.0/16', '2001:db8::/32'],
      ['198.18.0.10', '198.18.1.10', '198.18.7.7', '2001:db8::10'],
    ],
    ['a narrower CIDR', ['203.0.113.0/24'], ['203.0.113.7']],
    ['a zero-length prefix: every address', ['0.0.0.0/0'], ['0.0.0.0']],
    ['a zero-length prefix beside a CIDR: every address', ['0.0.0.0/0', '2001:db8::/32'], ['0.0.0.0']],
    ['a CIDR no interface is in: none (no port opened)', ['192.0.2.0/24'], []],
  ])('%s', (_name, nodePortAddresses, expected) => {
    const spec = healthCheckAddressesFor(nodePortAddresses, interfaces);
    expect(typeof spec === 'function' ? spec(node) : spec).toEqual(expected);
  });
});
