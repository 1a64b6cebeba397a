import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { nodeState, type ServiceFixture } from '../nodeview/state-fixtures.js';
import type { LocalService, NodeLocalState } from '../nodeview/types.js';
import { RecordingLogger } from '../sync/recording-logger.js';
import { RenderGuard, type RenderRefusal } from './render-guard.js';
import { renderRefusals, RENDER_REFUSED_METRIC } from './render-refusals.js';
import {
  isAffinityTimeout,
  isCanonicalCIDR,
  isCanonicalIP,
  isInterfaceName,
  isMarkBit,
  isObjectName,
  isOptionalPort,
  isPort,
  isProtocol,
} from './render-values.js';

describe('render values', () => {
  it.each([
    ['198.19.0.1', undefined, true],
    ['198.19.0.1', 'IPv4', true],
    ['198.19.0.1', 'IPv6', false],
    ['2001:db8::1', 'IPv6', true],
    ['2001:db8::1', 'IPv4', false],
    ['2001:DB8::1', undefined, false],
    ['2001:db8:0:0:0:0:0:1', undefined, false],
    ['::ffff:198.19.0.1', undefined, false],
    ['198.019.0.1', undefined, false],
    ['198.19.0.1 ', undefined, false],
    ['198.19.0.1\n-A KUBE-SERVICES -j ACCEPT', undefined, false],
    ['198.19.0.1/32', undefined, false],
    ['fe80::1%eth0', undefined, false],
    ['', undefined, false],
    [42, undefined, false],
    [undefined, undefined, false],
  ] as const)('isCanonicalIP(%j, %s) = %s', (value, family, ok) => {
    expect(isCanonicalIP(value, family)).toBe(ok);
  });

  it.each([
    ['203.0.113.0/24', undefined, true],
    ['203.0.113.0/24', 'IPv6', false],
    ['2001:db8::/32', 'IPv6', true],
    ['203.0.113.7/24', undefined, false],
    ['203.0.113.0/33', undefined, false],
    ['203.0.113.0', undefined, false],
    ['203.0.113.0/024', undefined, false],
    ['2001:DB8::/32', undefined, false],
    ['::ffff:203.0.113.0/120', undefined, false],
    ['203.0.113.0/24 -j ACCEPT', undefined, false],
  ] as const)('isCanonicalCIDR(%j, %s) = %s', (value, family, ok) => {
    expect(isCanonicalCIDR(value, family)).toBe(ok);
  });

  it('ports, protocols, affinity, interfaces, marks and object names', () => {
    expect([1, 80, 65535].every(isPort)).toBe(true);
    expect([0, -1, 65536, 1.5, NaN, '80', undefined].some(isPort)).toBe(false);
    expect([0, 30000].every(isOptionalPort)).toBe(true);
    expect([-1, 65536].some(isOptionalPort)).toBe(false);
    expect(['TCP', 'UDP', 'SCTP'].every(isProtocol)).toBe(true);
    expect(['tcp', 'TCP ', 'ICMP', 'TCP\n', ''].some(isProtocol)).toBe(false);
    expect([1, 10800, 86400].every(isAffinityTimeout)).toBe(true);
    expect([0, 86401, 1.5, '10'].some(isAffinityTimeout)).toBe(false);
    expect(['cbr0', 'veth', 'eth0.100', 'a-b_c'].every(isInterfaceName)).toBe(true);
    expect(['', '.', '..', 'eth 0', 'abcdefghijklmnop', 'eth0\n', 'a/b'].some(isInterfaceName)).toBe(false);
    expect([0, 14, 31].every(isMarkBit)).toBe(true);
    expect([-1, 32, 1.5].some(isMarkBit)).toBe(false);
    expect(['KUBE-SVC-ABC234', 'kpng-ipvs', 'kube-ipvs0'].every((n) => isObjectName(n))).toBe(true);
    expect(['', 'a b', 'KUBE\n', 'x'.repeat(65), 'a;b'].some((n) => isObjectName(n))).toBe(false);
  });
});

const WEB: ServiceFixture = {
  name: 'web',
  clusterIPs: ['198.19.0.1', '2001:db8:19::1'],
  externalIPs: ['203.0.113.1'],
  ports: [{ port: 80, nodePort: 30080 }],
  endpoints: [{ ip: '198.18.1.10' }, { ip: '198.18.2.10', node: 'node-b' }, { ip: '2001:db8:1::10' }],
};
const DB: ServiceFixture = { name: 'db', clusterIPs: ['198.19.0.2'], endpoints: [{ ip: '198.18.1.20' }] };

/** A state as a hostile stream could deliver it: `edit` changes the `web` Service's copy. */
function hostile(edit: (svc: any) => void): NodeLocalState {
  const state: any = structuredClone(nodeState([WEB, DB]));
  edit(state.services.find((s: LocalService) => s.name === 'web'));
  return state as NodeLocalState;
}

function guarded(state: NodeLocalState): { state: NodeLocalState; refusals: RenderRefusal[] } {
  const refusals: RenderRefusal[] = [];
  return { state: new RenderGuard((r) => refusals.push(r)).state(state), refusals };
}

describe('RenderGuard', () => {
  it('returns the very same state when every value is valid', () => {
    const state = nodeState([WEB, DB]);
    const { state: out, refusals } = guarded(state);
    expect(out).toBe(state);
    expect(refusals).toEqual([]);
  });

  it.each([
    ['clusterIP', (s: any): void => void (s.families.IPv4.clusterIP = '198.19.0.1\n-A X'), 'address'],
    ['a ClusterIP of the other family', (s: any): void => void (s.families.IPv4.clusterIP = '::1'), 'address'],
    ['externalIP', (s: any): void => void (s.families.IPv4.externalIPs = ['203.0.113.01']), 'address'],
    ['LB IP', (s: any): void => void (s.families.IPv6.loadBalancerIPs = ['2001:DB8::1']), 'address'],
    ['source range', (s: any): void => void (s.families.IPv4.loadBalancerSourceRanges = ['1.2.3.4/8']), 'cidr'],
    ['port', (s: any): void => void (s.ports[0].port = 70000), 'port'],
    ['nodePort', (s: any): void => void (s.ports[0].nodePort = -1), 'port'],
    ['protocol', (s: any): void => void (s.ports[0].protocol = 'TCP -j ACCEPT' as 'TCP'), 'protocol'],
    ['health check node port', (s: any): void => void (s.healthCheckNodePort = 1e6), 'port'],
    [
      'affinity timeout',
      (s: any): void => void (s.sessionAffinity = { type: 'ClientIP', timeoutSeconds: 0 }),
      'affinity',
    ],
  ] as const)('leaves out a Service with a bad %s, renders the rest', (_, edit, reason) => {
    const { state, refusals } = guarded(hostile(edit));
    expect(state.services.map((s) => s.name)).toEqual(['db']);
    expect(refusals).toEqual([expect.objectContaining({ kind: 'Service', key: 'default/web', reason })]);
  });

  it('leaves out a bad endpoint from every list of its port and family, keeps the others', () => {
    const { state, refusals } = guarded(
      hostile((s) => {
        const v4 = s.ports[0]!.endpoints.IPv4!;
        // The same object in every list it is in, as core's view builds them.
        v4.cluster[0]!.ip = '198.18.1.10 -j ACCEPT';
      }),
    );
    const web = state.services.find((s) => s.name === 'web')!;
    const v4 = web.ports[0]!.endpoints.IPv4!;
    for (const list of [v4.cluster, v4.allReachable, v4.serving, v4.internal, v4.external])
      expect(list.map((e) => e.ip)).toEqual(['198.18.2.10']);
    expect(v4.internal).toBe(v4.cluster);
    expect(web.ports[0]!.endpoints.IPv6!.cluster.map((e) => e.ip)).toEqual(['2001:db8:1::10']);
    expect(refusals).toEqual([
      expect.objectContaining({ kind: 'endpoint', reason: 'address', value: '"198.18.1.10 -j ACCEPT"' }),
    ]);
  });

  it('leaves out an endpoint with a bad port or of the other family', () => {
    const { state, refusals } = guarded(
      hostile((s) => {
        const v4 = s.ports[0]!.endpoints.IPv4!;
        v4.cluster[0]!.port = 0;
        v4.cluster[1]!.ip = '2001:db8:1::99';
      }),
    );
    const v4 = state.services.find((s) => s.name === 'web')!.ports[0]!.endpoints.IPv4!;
    expect(v4.allReachable).toEqual([]);
    // No cluster endpoint left: the port has none (REJECT), as core's view would say.
    expect(v4.hasAnyEndpoints).toBe(false);
    expect(refusals.map((r) => r.reason).sort()).toEqual(['address', 'port']);
  });

  it('leaves bad node addresses and CIDRs out of the node', () => {
    const state: any = structuredClone(nodeState([DB]));
    state.node.addresses = ['198.18.255.1', '198.18.255.2 -j ACCEPT'];
    state.node.podCIDRs = ['198.18.1.0/24', '198.18.1.1/24'];
    state.node.serviceCIDRs = ['198.19.0.0/16', 'x'];
    const { state: out, refusals } = guarded(state);
    expect(out.node.addresses).toEqual(['198.18.255.1']);
    expect(out.node.podCIDRs).toEqual(['198.18.1.0/24']);
    expect(out.node.serviceCIDRs).toEqual(['198.19.0.0/16']);
    expect(out.services).toBe(state.services);
    expect(refusals.map((r) => [r.kind, r.field])).toEqual([
      ['node', 'addresses'],
      ['node', 'podCIDRs'],
      ['node', 'serviceCIDRs'],
    ]);
  });

  it('leaves bad or other-family NodePort addresses out, keeps all and good ones, and a valid node as it is', () => {
    const good: any = structuredClone(nodeState([DB]));
    good.node.nodePortAddresses = { IPv4: ['198.18.255.1'], IPv6: 'all' };
    expect(guarded(good).state).toBe(good);
    const state: any = structuredClone(nodeState([DB]));
    state.node.nodePortAddresses = {
      IPv4: ['198.18.255.1', '2001:db8::1', '198.18.255.2 -j ACCEPT'],
      IPv6: ['::1', 7],
    };
    const { state: out, refusals } = guarded(state);
    expect(out.node.nodePortAddresses).toEqual({ IPv4: ['198.18.255.1'], IPv6: ['::1'] });
    expect(refusals.map((r) => [r.kind, r.field])).toEqual([
      ['node', 'nodePortAddresses.IPv4'],
      ['node', 'nodePortAddresses.IPv4'],
      ['node', 'nodePortAddresses.IPv6'],
    ]);
  });

  it('decides once per object: the same objects again are neither checked nor reported twice', () => {
    const state = hostile((s) => (s.ports[0]!.port = 0));
    const refusals: RenderRefusal[] = [];
    const guard = new RenderGuard((r) => refusals.push(r));
    const first = guard.state(state);
    const again = guard.state({ ...state });
    expect(again.services[0]).toBe(first.services[0]);
    expect(refusals).toHaveLength(1);
  });
});

describe('renderRefusals', () => {
  it('counts every refusal by backend, kind and reason, logs once per Service, kind and reason', async () => {
    const registry = new Registry();
    const log = new RecordingLogger();
    const observe = renderRefusals({ backend: 'iptables', registry, log });
    const refusal: RenderRefusal = { kind: 'Service', key: 'default/web', reason: 'address', field: 'x', value: '"y"' };
    observe(refusal);
    observe(refusal);
    observe({ ...refusal, kind: 'endpoint' });
    // A second backend on the same registry shares the counter.
    renderRefusals({ backend: 'ipvs', registry, log })({ ...refusal, reason: 'port' });
    const metric = await registry.getSingleMetric(RENDER_REFUSED_METRIC)!.get();
    expect(metric.values.map((v) => [v.labels, v.value])).toEqual([
      [{ backend: 'iptables', kind: 'Service', reason: 'address' }, 2],
      [{ backend: 'iptables', kind: 'endpoint', reason: 'address' }, 1],
      [{ backend: 'ipvs', kind: 'Service', reason: 'port' }, 1],
    ]);
    expect(log.records.filter((r) => r.level === 'warn')).toHaveLength(3);
  });
});
