import { describe, expect, it } from 'vitest';
import { nodeState } from '../testing/fixtures.js';
import { render } from './ruleset.js';
import type { FamilyRuleset } from './types.js';

const elementsOf = (ruleset: FamilyRuleset | undefined, container: string): string[] =>
  (ruleset?.elements ?? [])
    .filter((e) => e.container === container)
    .map((e) => `${e.key.join(' . ')}${e.value === undefined ? '' : ` : ${e.value.join(' . ')}`}`);

describe('render', () => {
  it('renders a ClusterIP service as dispatch and endpoint elements over one shared pick chain', () => {
    const state = nodeState([
      {
        name: 'a',
        clusterIPs: ['198.19.0.1'],
        endpoints: [{ ip: '198.18.1.1' }, { ip: '198.18.2.1', node: 'node-b' }],
      },
      {
        name: 'b',
        clusterIPs: ['198.19.0.2'],
        endpoints: [{ ip: '198.18.1.2' }, { ip: '198.18.2.2', node: 'node-b' }],
      },
    ]);
    const v4 = render(state, { families: ['IPv4'] }).get('IPv4');
    expect(elementsOf(v4, 'service-ips')).toEqual([
      '198.19.0.1 . tcp . 80 : goto pick-tcp-2',
      '198.19.0.2 . tcp . 80 : goto pick-tcp-2',
    ]);
    expect(elementsOf(v4, 'endpoints-tcp')).toEqual([
      '198.19.0.1 . 80 . 0 : 198.18.1.1 . 8080',
      '198.19.0.1 . 80 . 1 : 198.18.2.1 . 8080',
      '198.19.0.2 . 80 . 0 : 198.18.1.2 . 8080',
      '198.19.0.2 . 80 . 1 : 198.18.2.2 . 8080',
    ]);
    expect(v4?.chains.filter((c) => c.name.startsWith('pick-')).map((c) => c.name)).toEqual(['pick-tcp-2']);
    expect(elementsOf(v4, 'hairpin')).toEqual(['198.18.1.1 . 198.18.1.1', '198.18.1.2 . 198.18.1.2']);
  });

  it('keeps each family to its own addresses', () => {
    const state = nodeState([
      {
        name: 'dual',
        clusterIPs: ['198.19.0.1', '2001:db8:19::1'],
        endpoints: [{ ip: '198.18.1.1' }, { ip: '2001:db8:1::1' }],
      },
    ]);
    const rulesets = render(state);
    expect(elementsOf(rulesets.get('IPv4'), 'cluster-ips')).toEqual(['198.19.0.1']);
    expect(elementsOf(rulesets.get('IPv6'), 'cluster-ips')).toEqual(['2001:db8:19::1']);
    expect(elementsOf(rulesets.get('IPv6'), 'endpoints-tcp')).toEqual([
      '2001:db8:19::1 . 80 . 0 : 2001:db8:1::1 . 8080',
    ]);
    expect(elementsOf(rulesets.get('IPv4'), 'nodeport-ips')).toEqual(['198.18.255.1/32']);
    expect(elementsOf(rulesets.get('IPv6'), 'nodeport-ips')).toEqual(['2001:db8:ff::1/128']);
  });

  it("holds core's reading of nodePortAddresses: a family it matches wholly holds the whole family", () => {
    const services = [{ name: 'np', clusterIPs: ['198.19.0.1'], ports: [{ port: 80, nodePort: 30080 }] }];
    const cidrs = render(nodeState(services), { nodePortAddresses: ['198.18.7.9/16'] });
    expect(elementsOf(cidrs.get('IPv4'), 'nodeport-ips')).toEqual(['198.18.0.0/16']);
    expect(elementsOf(cidrs.get('IPv6'), 'nodeport-ips')).toEqual(['::/0']);
    // primary: a family without a Node IP, or with a loopback one, matches all (upstream).
    const loopback = render(nodeState(services, { addresses: ['127.0.0.1'] }));
    expect(elementsOf(loopback.get('IPv4'), 'nodeport-ips')).toEqual(['0.0.0.0/0']);
    expect(elementsOf(loopback.get('IPv6'), 'nodeport-ips')).toEqual(['::/0']);
  });
});
