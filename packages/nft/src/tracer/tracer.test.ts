import type { IPFamily } from '@kpng/core';
import { describe, expect, it } from 'vitest';
import type { NftConfigInput } from '../render/config.js';
import { render } from '../render/ruleset.js';
import { NODE_IPV4, NODE_IPV6, nodeState } from '../testing/fixtures.js';
import { allFeatures, clusterIPs, externalIPs, POD, type PodName } from '../testing/scenarios.js';
import { RulesetTracer } from './tracer.js';
import type { TracePacket, TraceResult } from './types.js';

type From = PodName | 'host' | 'external';
interface Case {
  readonly name: string;
  readonly from: From;
  /**
   * `cluster:N`, `external:N` (external/LB IP N), `node` (the node IP), `other-local` (another
   * local address), `loopback`, `unallocated`.
   */
  readonly to: string;
  readonly port: number;
  readonly proto?: 'tcp' | 'udp' | 'sctp';
  readonly verdict: TraceResult['verdict'];
  readonly endpoints?: readonly PodName[];
  /** true: every branch masqueraded; false: none; a pod: only the hairpin branch to it. */
  readonly masquerade?: boolean | PodName;
  readonly sticky?: boolean;
  readonly iif?: string;
}

const CLUSTER_CIDR: NftConfigInput = {
  localDetector: { mode: 'ClusterCIDR', clusterCIDRs: ['198.18.0.0/22', '2001:db8::/46'] },
  serviceCIDRs: ['198.19.0.0/16', '2001:db8:5e::/64'],
};
const EXTERNAL_CLIENT = { IPv4: '203.0.113.2', IPv6: '2001:db8:ee::2' };
const NODE = { IPv4: NODE_IPV4, IPv6: NODE_IPV6 };
/** Another address of the node's own (a second interface's), in no nodePortAddresses selection below. */
const OTHER_LOCAL = { IPv4: '198.18.254.1', IPv6: '2001:db8:fe::1' };

function address(family: IPFamily, to: string): string {
  const v = family === 'IPv4' ? 0 : 1;
  const [kind, n] = to.split(':');
  if (kind === 'cluster') return clusterIPs(Number(n))[v] as string;
  if (kind === 'external') return externalIPs(Number(n))[v] as string;
  if (to === 'node') return NODE[family];
  if (to === 'other-local') return OTHER_LOCAL[family];
  if (to === 'loopback') return family === 'IPv4' ? '127.0.0.1' : '::1';
  if (to === 'unallocated') return family === 'IPv4' ? '198.19.0.99' : '2001:db8:5e::99';
  throw new Error(`bad destination ${to}`);
}

function packet(family: IPFamily, c: Case): TracePacket {
  const src =
    c.from === 'host'
      ? NODE[family]
      : c.from === 'external'
        ? EXTERNAL_CLIENT[family]
        : POD[c.from][family === 'IPv4' ? 'v4' : 'v6'];
  return {
    family,
    src,
    dst: address(family, c.to),
    dport: c.port,
    proto: c.proto ?? 'tcp',
    ...(c.from === 'host' ? { fromHost: true } : {}),
    ...(c.iif === undefined ? {} : { iif: c.iif }),
  };
}

function endpointText(family: IPFamily, pod: PodName): string {
  return family === 'IPv4' ? `${POD[pod].v4}:8080` : `[${POD[pod].v6}]:8080`;
}

function check(tracer: RulesetTracer, family: IPFamily, c: Case): void {
  const result = tracer.trace(packet(family, c));
  const context = `${c.name} (${family})\n  matched:\n    ${result.matched.join('\n    ')}`;
  expect(result.verdict, context).toBe(c.verdict);
  const endpoints = (c.endpoints ?? []).map((p) => endpointText(family, p)).sort();
  expect(result.endpoints, context).toEqual(endpoints);
  if (typeof c.masquerade === 'string') {
    expect(result.masqueradedEndpoints, context).toEqual([endpointText(family, c.masquerade)]);
  } else if (c.verdict === 'dnat') {
    expect(result.masquerade, context).toBe(c.masquerade ?? false);
    if (c.masquerade !== true) expect(result.masqueradedEndpoints, context).toEqual([]);
  }
  expect(result.sticky, context).toBe(c.sticky ?? false);
}

function suite(config: NftConfigInput, cases: readonly Case[]): void {
  const rulesets = render(nodeState(allFeatures()), config);
  for (const family of ['IPv4', 'IPv6'] as const) {
    const tracer = new RulesetTracer(rulesets.get(family)!, { localAddresses: [NODE[family], OTHER_LOCAL[family]] });
    it.each(cases)(`${family}: $name`, (c) => check(tracer, family, c));
  }
}

describe('every feature, ClusterCIDR detector', () => {
  suite(CLUSTER_CIDR, [
    {
      name: 'ClusterIP from a local pod',
      from: 'b',
      to: 'cluster:10',
      port: 80,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
    },
    {
      name: 'ClusterIP from a remote pod',
      from: 'd',
      to: 'cluster:10',
      port: 80,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
    },
    {
      name: 'ClusterIP from outside the cluster: masqueraded',
      from: 'external',
      to: 'cluster:10',
      port: 80,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
      masquerade: true,
    },
    {
      name: 'ClusterIP from the host: masqueraded',
      from: 'host',
      to: 'cluster:10',
      port: 80,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
      masquerade: true,
    },
    {
      name: 'hairpin: only the way back to itself is masqueraded',
      from: 'a',
      to: 'cluster:10',
      port: 80,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
      masquerade: 'a',
    },
    { name: 'ClusterIP, unused port: reject', from: 'b', to: 'cluster:10', port: 81, verdict: 'reject' },
    { name: 'unallocated service address: drop', from: 'b', to: 'unallocated', port: 80, verdict: 'drop' },
    {
      name: 'NodePort from outside: masqueraded',
      from: 'external',
      to: 'node',
      port: 30080,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
      masquerade: true,
    },
    {
      name: 'NodePort from the host',
      from: 'host',
      to: 'node',
      port: 30080,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
      masquerade: true,
    },
    { name: 'NodePort on loopback: never', from: 'host', to: 'loopback', port: 30080, verdict: 'accept' },
    {
      name: 'UDP ClusterIP',
      from: 'b',
      to: 'cluster:11',
      port: 53,
      proto: 'udp',
      verdict: 'dnat',
      endpoints: ['b'],
      masquerade: 'b',
    },
    {
      name: 'UDP NodePort',
      from: 'external',
      to: 'node',
      port: 30053,
      proto: 'udp',
      verdict: 'dnat',
      endpoints: ['b'],
      masquerade: true,
    },
    { name: 'TCP to a UDP service port: reject', from: 'c', to: 'cluster:11', port: 53, verdict: 'reject' },
    { name: 'no endpoints, ClusterIP: reject', from: 'b', to: 'cluster:12', port: 80, verdict: 'reject' },
    { name: 'no endpoints, NodePort: reject', from: 'external', to: 'node', port: 30082, verdict: 'reject' },
    { name: 'no endpoints, external IP: reject', from: 'external', to: 'external:68', port: 80, verdict: 'reject' },
    { name: 'no endpoints, from the host: reject', from: 'host', to: 'cluster:12', port: 80, verdict: 'reject' },
    {
      name: 'LB IP, allowed source',
      from: 'external',
      to: 'external:70',
      port: 80,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
      masquerade: true,
    },
    { name: 'LB IP, source outside the ranges: drop', from: 'external', to: 'external:71', port: 80, verdict: 'drop' },
    {
      name: 'LB IP ranges do not apply to its NodePort',
      from: 'external',
      to: 'node',
      port: 30086,
      verdict: 'dnat',
      endpoints: ['a'],
      masquerade: true,
    },
    {
      name: 'ETP Local, external IP: local endpoint, source kept',
      from: 'external',
      to: 'external:72',
      port: 80,
      verdict: 'dnat',
      endpoints: ['a'],
    },
    {
      name: 'ETP Local, NodePort: local endpoint, source kept',
      from: 'external',
      to: 'node',
      port: 30084,
      verdict: 'dnat',
      endpoints: ['a'],
    },
    {
      name: 'ETP Local, NodePort from a local pod: short-circuit to all',
      from: 'b',
      to: 'node',
      port: 30084,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
    },
    {
      name: 'ETP Local, NodePort from the host: all, masqueraded',
      from: 'host',
      to: 'node',
      port: 30084,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
      masquerade: true,
    },
    {
      name: 'ETP Local does not touch the ClusterIP',
      from: 'b',
      to: 'cluster:15',
      port: 80,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
    },
    { name: 'ETP Local, no local endpoint: drop', from: 'external', to: 'node', port: 30085, verdict: 'drop' },
    {
      name: 'ETP Local, no local endpoint, from a pod: short-circuit',
      from: 'b',
      to: 'node',
      port: 30085,
      verdict: 'dnat',
      endpoints: ['c'],
    },
    {
      name: 'ETP Local, no local endpoint, from the host: short-circuit',
      from: 'host',
      to: 'node',
      port: 30085,
      verdict: 'dnat',
      endpoints: ['c'],
      masquerade: true,
    },
    {
      name: 'ITP Local: local endpoints only',
      from: 'd',
      to: 'cluster:17',
      port: 80,
      verdict: 'dnat',
      endpoints: ['a'],
    },
    { name: 'ITP Local, no local endpoint: drop', from: 'b', to: 'cluster:18', port: 80, verdict: 'drop' },
    {
      name: 'ClientIP affinity',
      from: 'c',
      to: 'cluster:19',
      port: 80,
      verdict: 'dnat',
      endpoints: ['a', 'b'],
      sticky: true,
    },
    {
      name: 'ClientIP affinity via NodePort',
      from: 'external',
      to: 'node',
      port: 30088,
      verdict: 'dnat',
      endpoints: ['a', 'b'],
      masquerade: true,
      sticky: true,
    },
    { name: 'SCTP', from: 'a', to: 'cluster:20', port: 9, proto: 'sctp', verdict: 'dnat', endpoints: ['b'] },
    { name: 'not a service at all: untouched', from: 'external', to: 'node', port: 22, verdict: 'accept' },
  ]);
});

describe('masqueradeAll', () => {
  suite({ ...CLUSTER_CIDR, masqueradeAll: true }, [
    {
      name: 'ClusterIP from a local pod is masqueraded',
      from: 'b',
      to: 'cluster:10',
      port: 80,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
      masquerade: true,
    },
    {
      name: 'external traffic under ETP Local still keeps its source',
      from: 'external',
      to: 'node',
      port: 30084,
      verdict: 'dnat',
      endpoints: ['a'],
    },
  ]);
});

describe('no local detector', () => {
  suite({}, [
    {
      name: 'ClusterIP from outside: not masqueraded',
      from: 'external',
      to: 'cluster:10',
      port: 80,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
    },
    {
      name: 'hairpin still masqueraded',
      from: 'a',
      to: 'cluster:10',
      port: 80,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
      masquerade: 'a',
    },
    {
      name: 'ETP Local from a pod: no short-circuit',
      from: 'b',
      to: 'node',
      port: 30084,
      verdict: 'dnat',
      endpoints: ['a'],
    },
    {
      name: 'ETP Local from the host: short-circuit',
      from: 'host',
      to: 'node',
      port: 30084,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
      masquerade: true,
    },
    {
      name: 'no service CIDRs: unallocated address untouched',
      from: 'b',
      to: 'unallocated',
      port: 80,
      verdict: 'accept',
    },
  ]);
});

describe('NodeCIDR detector', () => {
  suite({ localDetector: { mode: 'NodeCIDR' } }, [
    {
      name: 'a pod of this node is local',
      from: 'b',
      to: 'cluster:10',
      port: 80,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
    },
    {
      name: 'a pod of another node is not',
      from: 'd',
      to: 'cluster:10',
      port: 80,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
      masquerade: true,
    },
  ]);
});

describe('InterfaceNamePrefix detector', () => {
  suite({ localDetector: { mode: 'InterfaceNamePrefix', prefix: 'veth' } }, [
    {
      name: 'from a veth: local',
      from: 'b',
      iif: 'veth1b',
      to: 'cluster:10',
      port: 80,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
    },
    {
      name: 'from elsewhere: masqueraded',
      from: 'd',
      iif: 'remote0',
      to: 'cluster:10',
      port: 80,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
      masquerade: true,
    },
    {
      name: 'ETP Local from a veth: short-circuit',
      from: 'b',
      iif: 'veth1b',
      to: 'node',
      port: 30084,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
    },
  ]);
});

describe('nodePortAddresses', () => {
  suite({ nodePortAddresses: ['198.18.255.0/24', '2001:db8:ff::/64'] }, [
    {
      name: 'a node address in the CIDRs',
      from: 'external',
      to: 'node',
      port: 30080,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
      masquerade: true,
    },
    { name: 'a local address outside them', from: 'external', to: 'other-local', port: 30080, verdict: 'accept' },
    { name: 'loopback excluded anyway', from: 'host', to: 'loopback', port: 30080, verdict: 'accept' },
  ]);
});

describe('nodePortAddresses primary (the default)', () => {
  suite({}, [
    { name: 'a local address but the primary', from: 'external', to: 'other-local', port: 30080, verdict: 'accept' },
  ]);
});

describe('nodePortAddresses matching all', () => {
  suite({ nodePortAddresses: ['0.0.0.0/0', '::/0'] }, [
    {
      name: 'any local address',
      from: 'external',
      to: 'other-local',
      port: 30080,
      verdict: 'dnat',
      endpoints: ['a', 'c'],
      masquerade: true,
    },
    { name: 'loopback excluded anyway', from: 'host', to: 'loopback', port: 30080, verdict: 'accept' },
  ]);
});

describe('tracer strictness', () => {
  it('fails loudly on a rule shape it does not know', () => {
    const ruleset = render(nodeState(allFeatures()), { families: ['IPv4'] }).get('IPv4')!;
    const odd = {
      ...ruleset,
      chains: ruleset.chains.map((c) => (c.name === 'services' ? { ...c, rules: ['tcp dport 80 counter accept'] } : c)),
    };
    expect(() => new RulesetTracer(odd, { localAddresses: [] })).toThrow(/tracer does not know this rule shape/);
  });

  it('fails loudly when a pick has no endpoint element for a slot', () => {
    const ruleset = render(nodeState(allFeatures()), { families: ['IPv4'] }).get('IPv4')!;
    const missing = {
      ...ruleset,
      elements: ruleset.elements.filter(
        (e) => !(e.container === 'endpoints-tcp' && e.key[0] === '198.19.0.10' && e.key[2] === '1'),
      ),
    };
    const tracer = new RulesetTracer(missing, { localAddresses: [NODE_IPV4] });
    expect(() => tracer.trace({ family: 'IPv4', src: POD.b.v4, proto: 'tcp', dst: '198.19.0.10', dport: 80 })).toThrow(
      /finds no endpoint/,
    );
  });
});
