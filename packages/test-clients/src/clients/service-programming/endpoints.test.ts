import { describe, expect, it } from 'vitest';
import { slice } from '../../../test/support/objects.js';
import { EndpointSet } from './endpoints.js';

const names = (list: readonly { key: string }[]) => list.map((e) => e.key);

describe('EndpointSet', () => {
  it('reports endpoints that became ready and those that went away', () => {
    const set = new EndpointSet();
    expect(names(set.apply(slice('web-a', 'web', [{ name: 'web-1', ip: '198.18.1.10' }])).added)).toEqual([
      'IPv4/web-1',
    ]);
    const next = set.apply(
      slice('web-a', 'web', [
        { name: 'web-2', ip: '198.18.1.11' },
        { name: 'web-3', ip: '198.18.1.12', ready: false },
      ]),
    );
    expect(names(next.added)).toEqual(['IPv4/web-2']);
    expect(names(next.removed)).toEqual(['IPv4/web-1']);
    expect(set.count('IPv4')).toBe(1);
  });

  it('an endpoint turning ready is an addition', () => {
    const set = new EndpointSet();
    set.apply(slice('web-a', 'web', [{ name: 'web-1', ip: '198.18.1.10', ready: false }]));
    expect(names(set.apply(slice('web-a', 'web', [{ name: 'web-1', ip: '198.18.1.10' }])).added)).toEqual([
      'IPv4/web-1',
    ]);
  });

  it('an endpoint moving between slices is neither added nor removed', () => {
    const set = new EndpointSet();
    set.apply(slice('web-a', 'web', [{ name: 'web-1', ip: '198.18.1.10' }]));
    expect(set.apply(slice('web-b', 'web', [{ name: 'web-1', ip: '198.18.1.10' }]))).toEqual({
      added: [],
      removed: [],
    });
    expect(set.remove(slice('web-a', 'web', []))).toEqual({ added: [], removed: [] });
    expect(names(set.remove(slice('web-b', 'web', [])).removed)).toEqual(['IPv4/web-1']);
  });

  it('keeps families apart', () => {
    const set = new EndpointSet();
    set.apply(slice('web-v4', 'web', [{ name: 'web-1', ip: '198.18.1.10' }]));
    const v6 = set.apply(slice('web-v6', 'web', [{ name: 'web-1', ip: '2001:db8:1::10' }], { family: 'IPv6' }));
    expect(v6.added).toEqual([{ key: 'IPv6/web-1', family: 'IPv6', name: 'web-1', address: '2001:db8:1::10' }]);
    expect([set.count('IPv4'), set.count('IPv6')]).toEqual([1, 1]);
  });
});
