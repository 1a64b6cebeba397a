// Upstream's rule shapes, one case per behaviour (semantics 3.x): which lines a Service renders
// into the top-level chains and its own chains, for one family. Chain names are upstream's hashes.
import { nodeState, on, REMOTE_NODE, type ServiceFixture } from '@kpng/core/testing';
import { describe, expect, it } from 'vitest';
import { resolveConfig, type IptablesConfigInput } from './config.js';
import { renderContext } from './context.js';
import { endpointChain, servicePortChains } from './names.js';
import { renderService, renderServiceText } from './service.js';

function render(
  fixture: Omit<ServiceFixture, 'name' | 'clusterIPs'>,
  config: IptablesConfigInput = {},
  family: 'IPv4' | 'IPv6' = 'IPv4',
): string[] {
  const state = nodeState([{ name: 'web', clusterIPs: ['198.19.0.10', '2001:db8:5e::a'], ...fixture }]);
  const ctx = renderContext(resolveConfig(config), family, state.node, 0);
  const out = renderService(state.services[0]!, ctx);
  return [
    ...out.filter.map((l) => `filter ${l}`),
    ...out.nat.map((l) => `nat ${l}`),
    ...[...out.chains.values()].flat().map((l) => `nat ${l}`),
  ];
}

const C = servicePortChains('default/web', { protocol: 'TCP' } as never);
const U = servicePortChains('default/web', { protocol: 'UDP' } as never);
const sep = (ip: string, port = 8080, protocol: 'TCP' | 'UDP' = 'TCP'): string =>
  endpointChain('default/web', { protocol } as never, { ip, port } as never);
const A = '198.18.1.10';
const Cpod = '198.18.2.10';
const DETECT: IptablesConfigInput = { localDetector: { mode: 'ClusterCIDR', clusterCIDRs: ['198.18.0.0/16'] } };

describe('renderService', () => {
  const cases: {
    name: string;
    fixture: Omit<ServiceFixture, 'name' | 'clusterIPs'>;
    config?: IptablesConfigInput;
    family?: 'IPv4' | 'IPv6';
    has: string[];
    hasNot?: RegExp[];
  }[] = [
    {
      name: 'ClusterIP: capture, spread with statistic, hairpin mark and DNAT',
      fixture: { endpoints: on('a', 'c') },
      has: [
        `nat -A KUBE-SERVICES -m comment --comment "default/web cluster IP" -m tcp -p tcp -d 198.19.0.10 --dport 80 -j ${C.cluster}`,
        `nat -A ${C.cluster} -m comment --comment "default/web -> ${A}:8080" -m statistic --mode random --probability 0.5000000000 -j ${sep(A)}`,
        `nat -A ${C.cluster} -m comment --comment "default/web -> ${Cpod}:8080" -j ${sep(Cpod)}`,
        `nat -A ${sep(A)} -m comment --comment "default/web" -s ${A} -j KUBE-MARK-MASQ`,
        `nat -A ${sep(A)} -m comment --comment "default/web" -m tcp -p tcp -j DNAT --to-destination ${A}:8080`,
      ],
      hasNot: [/KUBE-MARK-MASQ.*cluster IP/],
    },
    {
      name: 'a local detector masquerades off-cluster ClusterIP traffic',
      fixture: { endpoints: on('a') },
      config: DETECT,
      has: [
        `nat -A ${C.cluster} -m comment --comment "default/web cluster IP" -m tcp -p tcp -d 198.19.0.10 --dport 80 ! -s 198.18.0.0/16 -j KUBE-MARK-MASQ`,
      ],
    },
    {
      name: 'masqueradeAll masquerades all ClusterIP traffic',
      fixture: { endpoints: on('a') },
      config: { masqueradeAll: true },
      has: [
        `nat -A ${C.cluster} -m comment --comment "default/web cluster IP" -m tcp -p tcp -d 198.19.0.10 --dport 80 -j KUBE-MARK-MASQ`,
      ],
    },
    {
      name: 'no endpoints: REJECT on every address, no nat rule',
      fixture: { ports: [{ port: 80, nodePort: 30080 }], externalIPs: ['203.0.113.68'], endpoints: [] },
      has: [
        'filter -A KUBE-SERVICES -m comment --comment "default/web has no endpoints" -m tcp -p tcp -d 198.19.0.10 --dport 80 -j REJECT',
        'filter -A KUBE-EXTERNAL-SERVICES -m comment --comment "default/web has no endpoints" -m tcp -p tcp -d 203.0.113.68 --dport 80 -j REJECT',
        'filter -A KUBE-EXTERNAL-SERVICES -m comment --comment "default/web has no endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 30080 -j REJECT',
      ],
      hasNot: [/^nat /],
    },
    {
      name: 'IPv6 TCP rejects with a reset',
      fixture: { endpoints: [] },
      family: 'IPv6',
      has: [
        'filter -A KUBE-SERVICES -m comment --comment "default/web has no endpoints" -m tcp -p tcp -d 2001:db8:5e::a --dport 80 -j REJECT --reject-with tcp-reset',
      ],
    },
    {
      name: 'NodePort under Cluster policy: KUBE-EXT marks for masquerade, then the service chain',
      fixture: { ports: [{ port: 80, nodePort: 30080 }], endpoints: on('a') },
      has: [
        `nat -A KUBE-NODEPORTS -m comment --comment "default/web" -m tcp -p tcp --dport 30080 -j ${C.external}`,
        `nat -A ${C.external} -m comment --comment "masquerade traffic for default/web external destinations" -j KUBE-MARK-MASQ`,
        `nat -A ${C.external} -j ${C.cluster}`,
      ],
    },
    {
      name: 'ETP Local: pod and LOCAL short-circuits, then the local chain; DROP when no local endpoint',
      fixture: { ports: [{ port: 80, nodePort: 30084 }], externalLocal: true, endpoints: on('c') },
      config: DETECT,
      has: [
        `nat -A ${C.external} -m comment --comment "pod traffic for default/web external destinations" -s 198.18.0.0/16 -j ${C.cluster}`,
        `nat -A ${C.external} -m comment --comment "masquerade LOCAL traffic for default/web external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ`,
        `nat -A ${C.external} -m comment --comment "route LOCAL traffic for default/web external destinations" -m addrtype --src-type LOCAL -j ${C.cluster}`,
        'filter -A KUBE-EXTERNAL-SERVICES -m comment --comment "default/web has no local endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 30084 -j DROP',
      ],
      hasNot: [new RegExp(`-j ${C.local}`)],
    },
    {
      name: 'ITP Local without a local endpoint: ClusterIP dropped',
      fixture: { internalLocal: true, endpoints: on('c') },
      has: [
        'filter -A KUBE-SERVICES -m comment --comment "default/web has no local endpoints" -m tcp -p tcp -d 198.19.0.10 --dport 80 -j DROP',
      ],
    },
    {
      name: 'ClientIP affinity: recent checks before spreading, set in the endpoint chain',
      fixture: { affinity: 60, endpoints: on('a') },
      has: [
        `nat -A ${C.cluster} -m comment --comment "default/web -> ${A}:8080" -m recent --name ${sep(A)} --rcheck --seconds 60 --reap -j ${sep(A)}`,
        `nat -A ${sep(A)} -m comment --comment "default/web" -m recent --name ${sep(A)} --set -m tcp -p tcp -j DNAT --to-destination ${A}:8080`,
      ],
    },
    {
      name: 'loadBalancerSourceRanges: KUBE-FW allows the ranges, KUBE-PROXY-FIREWALL drops the rest',
      fixture: { loadBalancerIPs: ['203.0.113.70'], sourceRanges: ['203.0.113.0/28'], endpoints: on('a') },
      has: [
        `nat -A KUBE-SERVICES -m comment --comment "default/web loadbalancer IP" -m tcp -p tcp -d 203.0.113.70 --dport 80 -j ${C.firewall}`,
        `nat -A ${C.firewall} -m comment --comment "default/web loadbalancer IP" -s 203.0.113.0/28 -j ${C.external}`,
        `filter -A KUBE-PROXY-FIREWALL -m comment --comment "default/web traffic not accepted by ${C.firewall}" -m tcp -p tcp -d 203.0.113.70 --dport 80 -j DROP`,
      ],
    },
    {
      name: 'UDP, IPv6: [ip]:port destinations',
      fixture: { ports: [{ protocol: 'UDP', port: 53 }], endpoints: [{ ip: '2001:db8:1::10' }] },
      family: 'IPv6',
      has: [
        `nat -A ${sep('2001:db8:1::10', 8080, 'UDP')} -m comment --comment "default/web" -m udp -p udp -j DNAT --to-destination [2001:db8:1::10]:8080`,
        `nat -A KUBE-SERVICES -m comment --comment "default/web cluster IP" -m udp -p udp -d 2001:db8:5e::a --dport 53 -j ${U.cluster}`,
      ],
    },
  ];

  it.each(cases)('$name', ({ fixture, config, family, has, hasNot }) => {
    const lines = render(fixture, config, family);
    for (const line of has) expect(lines, line).toContain(line);
    for (const pattern of hasNot ?? []) expect(lines.filter((l) => pattern.test(l))).toEqual([]);
  });

  // The backend writes `renderServiceText`; the readable form above must say exactly what it writes.
  // Every third endpoint on this node, the rest on another: both spreads (SVC and SVL) and the union of SEPs.
  const many = Array.from({ length: 40 }, (_, i) =>
    i % 3 === 0
      ? { ip: `198.18.${i >> 4}.${(i % 16) + 10}` }
      : { ip: `198.18.${i >> 4}.${(i % 16) + 10}`, node: REMOTE_NODE },
  );
  const textCases: {
    name: string;
    fixture: Omit<ServiceFixture, 'name' | 'clusterIPs'>;
    config?: IptablesConfigInput;
    family?: 'IPv4' | 'IPv6';
  }[] = [
    ...cases,
    {
      name: 'three ports, 40 endpoints, ETP Local with affinity and source ranges',
      fixture: {
        ports: [
          { name: 'http', port: 80, nodePort: 30080 },
          { name: 'https', port: 443, nodePort: 30443 },
          { name: 'dns', protocol: 'UDP' as const, port: 53, nodePort: 30053 },
        ],
        externalLocal: true,
        affinity: 30,
        loadBalancerIPs: ['203.0.113.70'],
        sourceRanges: ['203.0.113.0/28'],
        endpoints: many,
      },
      config: DETECT,
    },
  ];
  it.each(textCases)(
    '$name: the restore text holds the same lines, chain after chain',
    ({ fixture, config, family }) => {
      const state = nodeState([{ name: 'web', clusterIPs: ['198.19.0.10', '2001:db8:5e::a'], ...fixture }]);
      const ctx = renderContext(resolveConfig(config ?? {}), family ?? 'IPv4', state.node, 0);
      const lines = renderService(state.services[0]!, ctx);
      const text = renderServiceText(state.services[0]!, ctx);
      const joined = (l: readonly string[]): string => l.map((line) => `${line}\n`).join('');
      expect(text.filterText).toBe(joined(lines.filter));
      expect(text.natText).toBe(joined(lines.nat));
      expect(text.names).toEqual([...lines.chains.keys()]);
      if (fixture.endpoints === many) expect(text.names.length).toBe(3 * (40 + 4)); // per port: 40 SEPs, SVC, SVL, EXT, FW
      expect(text.rulesText).toBe(joined([...lines.chains.values()].flat()));
      expect([text.filterLines, text.natLines, text.ruleLines]).toEqual([
        lines.filter.length,
        lines.nat.length,
        [...lines.chains.values()].flat().length,
      ]);
    },
  );
});
