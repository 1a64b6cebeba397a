import type { NodePortAddresses } from '@kpng/core';
import { clusterIPs, externalIPs, nodeState, on, type ServiceFixture } from '@kpng/core/testing';
import { describe, expect, it } from 'vitest';
import { renderDesired } from './desired.js';
import { filterTable } from './filter-table.js';
import { DEFAULT_IPVS_CONFIG, type IpvsConfig } from './options.js';

const NODE = { addresses: ['198.18.255.1', '198.18.254.1', '2001:db8:ff::1', '2001:db8:fe::1'] };
const config = (overrides: Partial<IpvsConfig> = {}): IpvsConfig => ({ ...DEFAULT_IPVS_CONFIG, ...overrides });
const nodePortService: ServiceFixture = {
  name: 'np',
  clusterIPs: clusterIPs(10),
  ports: [{ port: 80, nodePort: 30080 }],
  endpoints: on('a'),
};

describe('renderDesired: NodePort virtual servers on the resolved nodePortAddresses', () => {
  const render = (nodePortAddresses: NodePortAddresses | undefined): string[] => {
    const state = nodeState([nodePortService], NODE);
    const node = nodePortAddresses === undefined ? state.node : { ...state.node, nodePortAddresses };
    return [...renderDesired({ ...state, node }, config()).virtualServers.keys()].filter((k) => k.endsWith('/30080'));
  };
  it.each([
    [
      'no sync stage resolved it: every Node address',
      undefined,
      ['198.18.254.1', '198.18.255.1', '[2001:db8:fe::1]', '[2001:db8:ff::1]'],
    ],
    [
      'all in IPv4, addresses in IPv6 (an interface address the Node object lacks included)',
      { IPv4: 'all', IPv6: ['2001:db8:ff::1', '2001:db8:ff::7'] },
      ['198.18.254.1', '198.18.255.1', '[2001:db8:ff::1]', '[2001:db8:ff::7]'],
    ],
    ['none selected in either family', { IPv4: [], IPv6: [] }, []],
  ] as const)('%s', (_name, nodePortAddresses, expected) => {
    expect(render(nodePortAddresses).sort()).toEqual(expected.map((a) => `TCP/${a}/30080`).sort());
  });
});

describe('renderDesired: SCTP', () => {
  it('SCTP ports get virtual servers (IPVS protocol 132) and count in the filter sets', () => {
    const sctp: ServiceFixture = {
      name: 'sctp',
      clusterIPs: clusterIPs(11),
      ports: [{ port: 9999, protocol: 'SCTP', nodePort: 30099 }],
      endpoints: on('a'),
    };
    const state = nodeState([sctp], NODE);
    const primary = { ...state.node, nodePortAddresses: { IPv4: ['198.18.255.1'], IPv6: ['2001:db8:ff::1'] } };
    expect([...renderDesired({ ...state, node: primary }, config()).virtualServers.keys()].sort()).toEqual([
      'SCTP/198.18.255.1/30099',
      'SCTP/198.19.0.11/9999',
      'SCTP/[2001:db8:5e::b]/9999',
      'SCTP/[2001:db8:ff::1]/30099',
    ]);
    const table = filterTable(renderDesired(nodeState([sctp], NODE), config()), config(), 'IPv4');
    expect(table).toContainEqual(
      expect.objectContaining({ set: 'service_ports', key: ['198.19.0.11', 'sctp', '9999'] }),
    );
  });
});

describe('filterTable: loadBalancerSourceRanges', () => {
  const lb: ServiceFixture = {
    name: 'lb',
    clusterIPs: clusterIPs(12),
    externalIPs: externalIPs(5),
    loadBalancerIPs: ['203.0.113.70'],
    sourceRanges: ['203.0.113.0/28', '198.51.100.0/24'],
    ports: [{ port: 80, nodePort: 30086 }],
    endpoints: on('a'),
  };
  const table = filterTable(renderDesired(nodeState([lb], NODE), config()), config(), 'IPv4');
  const elements = (set: string): string[] =>
    table.flatMap((o) => (o.kind === 'element' && o.set === set ? [o.key.join(' . ')] : [])).sort();

  it('guards the LB IP only: not the external IP, the ClusterIP or the NodePort', () => {
    expect(elements('firewall')).toEqual(['203.0.113.70 . tcp . 80']);
  });

  it('allows each source range for the guarded address and port', () => {
    expect(elements('firewall_allow')).toEqual([
      '203.0.113.70 . tcp . 80 . 198.51.100.0/24',
      '203.0.113.70 . tcp . 80 . 203.0.113.0/28',
    ]);
  });

  it('drops other sources before IPVS sees them, from outside (prerouting) and from the node (output)', () => {
    const rules = table.flatMap((o) => (o.kind === 'rule' && o.rule.includes('@firewall_allow') ? [o.chain] : []));
    expect(rules.sort()).toEqual(['output', 'prerouting']);
  });

  it('without source ranges nothing is guarded', () => {
    const open = filterTable(renderDesired(nodeState([{ ...lb, sourceRanges: [] }], NODE), config()), config(), 'IPv4');
    expect(open.filter((o) => o.kind === 'element' && o.set?.startsWith('firewall'))).toEqual([]);
  });
});

describe('filterTable: health-check node ports at Service addresses', () => {
  const etpLocal: ServiceFixture = {
    name: 'lb-local',
    clusterIPs: clusterIPs(13),
    loadBalancerIPs: ['203.0.113.71'],
    ports: [{ port: 80, nodePort: 30087 }],
    externalLocal: true,
    endpoints: on('a'),
  };
  const tableOf = (services: ServiceFixture[], healthCheckNodePort: number) => {
    const state = nodeState(services, NODE);
    const withPort = { ...state, services: state.services.map((s) => ({ ...s, healthCheckNodePort })) };
    return filterTable(renderDesired(withPort, config()), config(), 'IPv4');
  };
  const elements = (table: ReturnType<typeof tableOf>): string[] =>
    table.flatMap((o) => (o.kind === 'element' && o.set === 'health_check_ports' ? [o.key.join(' . ')] : []));

  it("each Service's health-check node port once, by port number (as upstream's bitmap:port set)", () => {
    expect(elements(tableOf([etpLocal], 32087))).toEqual(['32087']);
    expect(elements(tableOf([etpLocal], 0))).toEqual([]);
  });

  it("the reject of other ports at Service addresses leaves them alone (upstream's KUBE-IPVS-FILTER RETURN)", () => {
    const reject = tableOf([etpLocal], 32087).find(
      (o) => o.kind === 'rule' && o.chain === 'input' && o.rule.includes('@service_ips'),
    );
    expect(reject).toMatchObject({
      rule: expect.stringMatching(/th dport != @health_check_ports .* != @service_ports reject$/),
    });
    expect(tableOf([etpLocal], 32087)).toContainEqual(
      expect.objectContaining({ kind: 'set', name: 'health_check_ports', type: 'inet_service' }),
    );
  });
});
