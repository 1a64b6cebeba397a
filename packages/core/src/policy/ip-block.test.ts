import { describe, expect, test } from 'vitest';
import { ipBlockCIDRs } from './ip-block.js';

describe('ipBlockCIDRs', () => {
  test.each([
    ['no exception', { cidr: '198.18.0.0/16', except: [] }, ['198.18.0.0/16']],
    [
      // The NetworkPolicy docs' example: 172.17.0.0/16 except 172.17.1.0/24.
      'one exception',
      { cidr: '172.17.0.0/16', except: ['172.17.1.0/24'] },
      [
        '172.17.0.0/24',
        '172.17.2.0/23',
        '172.17.4.0/22',
        '172.17.8.0/21',
        '172.17.16.0/20',
        '172.17.32.0/19',
        '172.17.64.0/18',
        '172.17.128.0/17',
      ],
    ],
    ['an exception covering the block', { cidr: '198.18.1.0/24', except: ['198.18.0.0/16'] }, []],
    ['an exception equal to the block', { cidr: '198.18.1.0/24', except: ['198.18.1.0/24'] }, []],
    ['an exception outside the block', { cidr: '198.18.1.0/24', except: ['198.18.2.0/24'] }, ['198.18.1.0/24']],
    ['an exception of the other family', { cidr: '198.18.1.0/24', except: ['2001:db8::/32'] }, ['198.18.1.0/24']],
    [
      'two exceptions',
      { cidr: '198.18.1.0/30', except: ['198.18.1.0/32', '198.18.1.3/32'] },
      ['198.18.1.1/32', '198.18.1.2/32'],
    ],
    ['IPv6', { cidr: '2001:db8:1::/48', except: ['2001:db8:1:8000::/49'] }, ['2001:db8:1::/49']],
    ['everything except one address', { cidr: '0.0.0.0/0', except: ['198.18.1.10/32'] }, 32],
  ] as const)('%s', (_name, block, expected) => {
    const cidrs = ipBlockCIDRs(block);
    if (typeof expected === 'number') expect(cidrs).toHaveLength(expected);
    else expect(cidrs).toEqual(expected);
  });
});
