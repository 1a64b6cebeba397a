import { describe, expect, it } from 'vitest';
import { endpointKey, endpointValue, lbValue, serviceKey } from '../maps/layout.js';
import { emptyEntries, type Entries } from './plan.js';
import { removedUdpPairs, udpPairs } from './stale.js';

const hex = (b: Buffer) => b.toString('hex');

/** A picture with one lb per (address, port, protocol), its endpoints as given. */
function picture(
  lbs: readonly { ip: string; port: number; proto: 'TCP' | 'UDP'; id: number; eps: string[] }[],
): Entries {
  const entries = emptyEntries();
  for (const lb of lbs) {
    const family = lb.ip.includes(':') ? 'IPv6' : 'IPv4';
    entries[family === 'IPv4' ? 'services4' : 'services6'].set(
      hex(serviceKey(family, lb.ip, lb.port, lb.proto)),
      hex(lbValue({ id: lb.id, count: lb.eps.length, affinitySeconds: 0, flags: 0 })),
    );
    lb.eps.forEach((ep, i) => entries.endpoints.set(hex(endpointKey(lb.id, i)), hex(endpointValue(family, ep, 5353))));
  }
  return entries;
}

/** The walker's key: the Service as an ep, then the endpoint. */
const pair = (family: 'IPv4' | 'IPv6', service: string, port: number, endpoint: string) =>
  hex(endpointValue(family, service, port)) + hex(endpointValue(family, endpoint, 5353));

describe('stale UDP pairs', () => {
  it('pairs every UDP Service address with its lb endpoints, IPv4 and IPv6; TCP lbs have none', () => {
    const pairs = udpPairs(
      picture([
        { ip: '198.19.0.10', port: 53, proto: 'UDP', id: 1, eps: ['198.18.0.1', '198.18.0.2'] },
        { ip: '198.19.0.10', port: 53, proto: 'TCP', id: 2, eps: ['198.18.0.3'] },
        { ip: '2001:db8::10', port: 53, proto: 'UDP', id: 3, eps: ['2001:db8:1::1'] },
      ]),
    );
    expect(pairs).toEqual(
      new Set([
        pair('IPv4', '198.19.0.10', 53, '198.18.0.1'),
        pair('IPv4', '198.19.0.10', 53, '198.18.0.2'),
        pair('IPv6', '2001:db8::10', 53, '2001:db8:1::1'),
      ]),
    );
    expect(pair('IPv4', '198.19.0.10', 53, '198.18.0.1')).toHaveLength(80);
  });

  it('removed: an endpoint gone from a UDP lb, not one moved to another index or kept by the lb', () => {
    const before = picture([{ ip: '198.19.0.10', port: 53, proto: 'UDP', id: 1, eps: ['198.18.0.1', '198.18.0.2'] }]);
    const after = picture([{ ip: '198.19.0.10', port: 53, proto: 'UDP', id: 1, eps: ['198.18.0.2'] }]);
    expect(removedUdpPairs(before, after)).toEqual([pair('IPv4', '198.19.0.10', 53, '198.18.0.1')]);
    expect(removedUdpPairs(after, before)).toEqual([]);
    // A TCP-only change removes nothing to sweep.
    const tcp = picture([{ ip: '198.19.0.10', port: 80, proto: 'TCP', id: 1, eps: ['198.18.0.1'] }]);
    expect(removedUdpPairs(tcp, emptyEntries())).toEqual([]);
    // A Service deleted: all its pairs.
    expect(removedUdpPairs(before, emptyEntries())).toHaveLength(2);
  });
});
