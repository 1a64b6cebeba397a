import { describe, expect, it } from 'vitest';
import { decodeAttributes, encodeAttributes, nested, u32 } from '../netlink/attributes.js';
import { CMD_ATTR, decodeDestStats, decodeServiceStats } from '../ipvs/codec.js';
import type { VirtualServer } from '../ipvs/types.js';
import { filterReport, ipvsReport, selectVirtualServers, type ServiceAddresses } from './select.js';

const vs = (address: string, port: number, protocol: VirtualServer['protocol'] = 'TCP'): VirtualServer => ({
  family: address.includes(':') ? 'IPv6' : 'IPv4',
  protocol,
  address,
  port,
  scheduler: 'rr',
  persistentSeconds: 0,
});

const web: ServiceAddresses = {
  clusterIPs: ['198.19.0.10', '2001:db8:5e::a'],
  externalIPs: ['203.0.113.7'],
  loadBalancerIPs: ['203.0.113.9'],
  ports: [
    { name: 'http', protocol: 'TCP', port: 80, nodePort: 30080, targetPort: 8080 },
    { name: 'dns', protocol: 'UDP', port: 53, nodePort: 0, targetPort: 53 },
  ],
};
/** kube-ipvs0 holds every Service IP of the node: this Service's and another's (198.19.0.11). */
const BOUND = ['198.19.0.10', '198.19.0.11', '203.0.113.7', '203.0.113.9', '2001:db8:5e::a'];
const STATS = { connections: 4, packetsIn: 30, packetsOut: 20, bytesIn: 1800, bytesOut: 2400 };

describe('explain (ipvs): selecting one Service among what IPVS holds', () => {
  const kernel = [
    { vs: vs('198.19.0.10', 80), stats: STATS },
    { vs: vs('198.19.0.10', 53, 'UDP') },
    { vs: vs('198.19.0.10', 443) }, // not one of its ports
    { vs: vs('2001:db8:5e::a', 80) },
    { vs: vs('203.0.113.7', 80) },
    { vs: vs('203.0.113.9', 80) },
    { vs: vs('198.18.0.2', 30080) }, // a host address: its NodePort
    { vs: vs('2001:db8::2', 30080) },
    { vs: vs('198.18.0.2', 30080, 'UDP') }, // its NodePort is TCP only
    { vs: vs('198.19.0.11', 30080) }, // another Service's ClusterIP that happens to use the port
    { vs: vs('198.19.0.11', 80) }, // another Service
  ];

  it('takes its addresses and ports, and its NodePorts on addresses kube-ipvs0 does not hold', () => {
    const picked = selectVirtualServers(web, kernel, BOUND).map(({ observed, role }) => [
      `${observed.vs.protocol} ${observed.vs.address}:${observed.vs.port}`,
      role,
    ]);
    expect(picked).toEqual([
      ['TCP 198.19.0.10:80', 'ClusterIP'],
      ['UDP 198.19.0.10:53', 'ClusterIP'],
      ['TCP 2001:db8:5e::a:80', 'ClusterIP'],
      ['TCP 203.0.113.7:80', 'external IP'],
      ['TCP 203.0.113.9:80', 'LB IP'],
      ['TCP 198.18.0.2:30080', 'NodePort'],
      ['TCP 2001:db8::2:30080', 'NodePort'],
    ]);
    expect(
      selectVirtualServers(
        { ...web, clusterIPs: ['198.19.0.99'], externalIPs: [], loadBalancerIPs: [], ports: [] },
        kernel,
        BOUND,
      ),
    ).toEqual([]);
  });

  it('prints virtual servers with their counters, real servers with weights, connections and counters, and its kube-ipvs0 addresses', () => {
    const selected = selectVirtualServers(web, kernel.slice(0, 2), BOUND);
    const real = { address: '198.18.1.5', port: 8080, weight: 1, activeConnections: 1, inactiveConnections: 3 };
    const report = ipvsReport(
      'IPVS and kube-ipvs0',
      selected,
      (v) => (v.port === 80 ? [{ rs: real, stats: STATS }] : []),
      web,
      BOUND,
    );
    expect(report.sections).toEqual([
      {
        title: 'virtual servers (ipvsadm -Ln --stats; counters: packets and bytes in)',
        lines: [
          {
            text: 'TCP 198.19.0.10:80 rr (ClusterIP, 4 connections, out 20 packets 2400 bytes)',
            packets: 30,
            bytes: 1800,
          },
          { text: 'UDP 198.19.0.10:53 rr (ClusterIP)' },
        ],
      },
      {
        title: 'real servers of TCP/198.19.0.10/80',
        lines: [
          {
            text: '-> 198.18.1.5:8080 Masq weight 1, active 1, inactive 3, 4 connections, out 20 packets 2400 bytes',
            packets: 30,
            bytes: 1800,
          },
        ],
      },
      {
        title: 'real servers of UDP/198.19.0.10/53',
        lines: [{ text: '(none: the filter table rejects or drops its traffic)' }],
      },
      {
        title: 'kube-ipvs0 addresses',
        lines: ['198.19.0.10', '203.0.113.7', '203.0.113.9', '2001:db8:5e::a'].map((text) => ({ text })),
      },
    ]);
    expect(ipvsReport('IPVS', [], () => [], web, BOUND).sections).toEqual([]);
  });

  it("takes the filter elements keyed by its virtual servers and the hairpin elements of its endpoints, of the table's family", () => {
    const elements = [
      { set: 'service_ports', key: ['198.19.0.10', 'tcp', '80'] },
      { set: 'masq_outside', key: ['198.19.0.10', 'tcp', '80'] },
      { set: 'firewall', key: ['203.0.113.9', 'tcp', '80'] },
      { set: 'firewall_allow', key: ['203.0.113.9', 'tcp', '80', '192.0.2.0/24'] },
      { set: 'service_ports', key: ['198.19.0.11', 'tcp', '80'] },
      { set: 'service_ports', key: ['198.19.0.10', 'udp', '80'] },
      { set: 'hairpin', key: ['198.18.1.5', 'tcp', '8080', '198.18.1.5'] },
      { set: 'hairpin', key: ['198.18.1.6', 'tcp', '8080', '198.18.1.6'] },
    ];
    const selected = [vs('198.19.0.10', 80), vs('203.0.113.9', 80), vs('2001:db8:5e::a', 80)];
    const reals = [{ address: '198.18.1.5', port: 8080, weight: 1, activeConnections: 0, inactiveConnections: 0 }];
    expect(filterReport('t', 'IPv4', elements, selected, reals).sections).toEqual([
      {
        title: 'its elements',
        lines: [
          '@service_ports { 198.19.0.10 . tcp . 80 }',
          '@masq_outside { 198.19.0.10 . tcp . 80 }',
          '@firewall { 203.0.113.9 . tcp . 80 }',
          '@firewall_allow { 203.0.113.9 . tcp . 80 . 192.0.2.0/24 }',
        ].map((text) => ({ text })),
      },
      {
        title: 'hairpin elements of its endpoints (shared by every Service with the same endpoint)',
        lines: [{ text: '@hairpin { 198.18.1.5 . tcp . 8080 . 198.18.1.5 }' }],
      },
    ]);
    expect(filterReport('t', 'IPv6', elements.slice(0, 6), selected, []).sections).toEqual([]);
  });
});

describe('IPVS counters (IPVS_*_ATTR_STATS64, else STATS)', () => {
  const u64 = (n: number): Buffer => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    return b;
  };
  it('decodes a service and a dest answer, 64-bit first, 32-bit otherwise, none when absent', () => {
    const stats64 = nested(12, [
      [1, u64(5)],
      [2, u64(2 ** 33)],
      [3, u64(7)],
      [4, u64(900)],
      [5, u64(1200)],
    ]);
    const stats32 = nested(10, [
      [1, u32(1)],
      [2, u32(2)],
      [3, u32(3)],
      [4, u64(4)],
      [5, u64(5)],
    ]);
    const answer = (outer: number, attrs: Parameters<typeof encodeAttributes>[0]) =>
      decodeAttributes(encodeAttributes([nested(outer, attrs)]));
    expect(decodeServiceStats(answer(CMD_ATTR.SERVICE, [stats32, stats64]))).toEqual({
      connections: 5,
      packetsIn: 2 ** 33,
      packetsOut: 7,
      bytesIn: 900,
      bytesOut: 1200,
    });
    expect(decodeDestStats(answer(CMD_ATTR.DEST, [stats32]))).toEqual({
      connections: 1,
      packetsIn: 2,
      packetsOut: 3,
      bytesIn: 4,
      bytesOut: 5,
    });
    expect(decodeDestStats(answer(CMD_ATTR.DEST, [[1, u32(1)]]))).toBeUndefined();
    expect(decodeServiceStats(answer(CMD_ATTR.DEST, [stats64]))).toBeUndefined();
  });
});
