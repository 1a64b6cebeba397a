import { describe, expect, it } from 'vitest';
import { aNodeLocalState } from '../sync/local-state-fixtures.js';
import type { LocalNode } from '../nodeview/types.js';
import { healthCheckAddressesFor } from './health-check-addresses.js';

const node: LocalNode = {
  ...aNodeLocalState().node,
  addresses: ['198.18.0.10', '2001:db8::10', '198.18.1.10', '203.0.113.7'],
};

describe('healthCheckAddressesFor (nodePortAddresses)', () => {
  it.each<[string, string[], readonly string[]]>([
    ['unset: every address', [], ['0.0.0.0']],
    ['primary: the first address of each family, not 0.0.0.0', ['primary'], ['198.18.0.10', '2001:db8::10']],
    [
      'CIDRs: the node addresses inside them',
      ['198.18.0.0/16', '2001:db8::/32'],
      ['198.18.0.10', '2001:db8::10', '198.18.1.10'],
    ],
    ['a narrower CIDR', ['203.0.113.0/24'], ['203.0.113.7']],
    ['a zero-length prefix: every address', ['0.0.0.0/0'], ['0.0.0.0']],
  ])('%s', (_name, nodePortAddresses, expected) => {
    const spec = healthCheckAddressesFor(nodePortAddresses);
    expect(typeof spec === 'function' ? spec(node) : spec).toEqual(expected);
  });
});
