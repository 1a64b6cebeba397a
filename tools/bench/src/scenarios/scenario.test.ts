import { describe, expect, it } from 'vitest';
import type { ServiceObject } from '../kube/types.js';
import { generate } from './catalog.js';
import { scenarioViolations } from './invariants.js';
import { scenario, type Scenario } from './scenario.js';

const endpointCount = (s: Scenario): number => s.endpointSlices.reduce((n, slice) => n + slice.endpoints.length, 0);
const count = (s: Scenario, test: (svc: ServiceObject) => boolean): number => s.services.filter(test).length;

describe('named scenarios', () => {
  const s1k = generate('s1k');
  const s10k = generate('s10k');
  const wide = generate('s10k-wide');

  it('are identical for the same seed and differ for another', () => {
    expect(JSON.stringify(generate('s1k'))).toBe(JSON.stringify(s1k));
    const other = generate('s1k', { seed: 2 });
    expect(other.services.length).toBe(1_000);
    expect(JSON.stringify(other)).not.toBe(JSON.stringify(s1k));
  });

  it.each([
    ['s1k', () => s1k],
    ['s10k', () => s10k],
    ['s10k-wide', () => wide],
  ])('%s keeps every invariant (address plan, unique NodePorts, slices <= 100, metadata)', (_name, get) => {
    expect(scenarioViolations(get())).toEqual([]);
  });

  it('s1k: 1,000 ClusterIP Services x 10 endpoints over 100 nodes', () => {
    expect(s1k.services.length).toBe(1_000);
    expect(endpointCount(s1k)).toBe(10_000);
    expect(s1k.endpointSlices.length).toBe(1_000);
    expect(s1k.nodes.map((n) => n.metadata.name)).toEqual(
      Array.from({ length: 100 }, (_, i) => `node-${String(i).padStart(3, '0')}`),
    );
    expect(count(s1k, (s) => s.spec.type === 'ClusterIP')).toBe(1_000);
    expect(s1k.benchNode).toBe('node-000');
  });

  it('s10k: exact feature counts', () => {
    expect(s10k.services.length).toBe(10_000);
    expect(endpointCount(s10k)).toBe(100_000);
    expect(count(s10k, (s) => s.spec.type === 'NodePort')).toBe(1_000);
    expect(
      count(
        s10k,
        (s) => s.spec.sessionAffinity === 'ClientIP' && s.spec.sessionAffinityConfig?.clientIP.timeoutSeconds === 10800,
      ),
    ).toBe(500);
    const local = s10k.services.filter((s) => s.spec.externalTrafficPolicy === 'Local');
    expect(local.length).toBe(500);
    for (const s of local) {
      expect(s.spec.type).toBe('LoadBalancer');
      expect(s.spec.healthCheckNodePort).toBeGreaterThanOrEqual(30000);
      expect(s.status.loadBalancer.ingress?.[0]?.ip).toMatch(/^203\.0\.113\.\d+$/);
    }
    expect(count(s10k, (s) => s.spec.type === 'LoadBalancer')).toBe(500);
    expect(count(s10k, (s) => s.spec.ports.length === 2)).toBe(1_000);
    expect(count(s10k, (s) => s.spec.ports.length === 1)).toBe(9_000);
  });

  it('s10k: the bench node hosts some endpoints of some Local Services, not of all', () => {
    const local = new Set(
      s10k.services.filter((s) => s.spec.externalTrafficPolicy === 'Local').map((s) => s.metadata.name),
    );
    const withLocal = new Set(
      s10k.endpointSlices
        .filter((sl) => sl.endpoints.some((e) => e.nodeName === 'node-000'))
        .map((sl) => sl.metadata.labels?.['kubernetes.io/service-name'] ?? ''),
    );
    const localWithEndpointHere = [...local].filter((n) => withLocal.has(n)).length;
    expect(localWithEndpointHere).toBeGreaterThan(0);
    expect(localWithEndpointHere).toBeLessThan(local.size);
  });

  it('s10k-wide: 1,000 x 100 plus 9,000 x 1', () => {
    expect(wide.services.length).toBe(10_000);
    expect(endpointCount(wide)).toBe(1_000 * 100 + 9_000);
    const sizes = new Map<string, number>();
    for (const sl of wide.endpointSlices) {
      const name = sl.metadata.labels?.['kubernetes.io/service-name'] ?? '';
      sizes.set(name, (sizes.get(name) ?? 0) + sl.endpoints.length);
    }
    const histogram = new Map<number, number>();
    for (const n of sizes.values()) histogram.set(n, (histogram.get(n) ?? 0) + 1);
    expect(Object.fromEntries(histogram)).toEqual({ 100: 1_000, 1: 9_000 });
  });
});

describe('scenario()', () => {
  it('cuts endpoints into slices of at most 100 and keeps an empty slice for a Service without endpoints', () => {
    const s = scenario({ services: 2, endpointsPerService: (i) => (i === 0 ? 250 : 0), nodes: 5 });
    expect(scenarioViolations(s)).toEqual([]);
    const bySvc = (name: string): number[] =>
      s.endpointSlices
        .filter((sl) => sl.metadata.labels?.['kubernetes.io/service-name'] === name)
        .map((sl) => sl.endpoints.length);
    expect(bySvc('svc-00000')).toEqual([100, 100, 50]);
    expect(bySvc('svc-00001')).toEqual([0]);
    expect(s.nodes.length).toBe(5);
  });

  it('prints the fields kubectl prints on each kind', () => {
    const s = scenario({
      services: 4,
      endpointsPerService: 2,
      nodes: 2,
      nodePortFraction: 0.5,
      localTrafficPolicyFraction: 0.25,
      clientIPAffinityFraction: 0.25,
    });
    const [node] = s.nodes;
    expect(node).toMatchObject({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-000' },
      spec: { podCIDR: expect.any(String) },
    });
    expect(node?.metadata).not.toHaveProperty('namespace');
    for (const svc of s.services) {
      expect(svc).toMatchObject({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: expect.any(String), namespace: expect.any(String) },
      });
      expect(svc.spec).toMatchObject({
        clusterIP: expect.any(String),
        ipFamilies: ['IPv4'],
        internalTrafficPolicy: 'Cluster',
      });
    }
    const nodePort = s.services.find((x) => x.spec.type === 'NodePort');
    expect(nodePort?.spec.externalTrafficPolicy).toBe('Cluster');
    expect(nodePort?.spec.ports[0]?.nodePort).toBeGreaterThanOrEqual(30000);
    for (const sl of s.endpointSlices) {
      expect(sl).toMatchObject({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', addressType: 'IPv4' });
      expect(sl.metadata.annotations?.['endpoints.kubernetes.io/last-change-trigger-time']).toBe(
        '2025-01-01T00:00:00Z',
      );
      expect(sl.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Service', controller: true });
      expect(sl.endpoints[0]).toMatchObject({
        conditions: { ready: true, serving: true, terminating: false },
        zone: expect.stringMatching(/^zone-/),
      });
    }
  });

  it('gives LoadBalancer Services past the 254th a shared IP on shifted ports', () => {
    const s = scenario({ services: 300, endpointsPerService: 1, localTrafficPolicyFraction: 1, nodes: 3 });
    expect(scenarioViolations(s)).toEqual([]);
    expect(new Set(s.services.map((x) => x.status.loadBalancer.ingress?.[0]?.ip)).size).toBe(254);
    expect(s.services[299]?.spec.ports[0]?.port).toBe(81);
  });

  it('rejects options it cannot honour', () => {
    expect(() => scenario({ services: 10, endpointsPerService: 1, nodePortFraction: 1.5 })).toThrow(RangeError);
    expect(() =>
      scenario({ services: 10, endpointsPerService: 1, nodePortFraction: 0.6, localTrafficPolicyFraction: 0.5 }),
    ).toThrow(/exceeds/);
    expect(() =>
      scenario({ services: 2_000, endpointsPerService: 1, nodePortFraction: 1, twoPortFraction: 1 }),
    ).toThrow(/exhausted/);
    expect(() => scenario({ services: 1, endpointsPerService: 1, nodes: 0 })).toThrow(RangeError);
    expect(() => scenario({ services: 1, endpointsPerService: 40_000, nodes: 1 })).toThrow(/pod addresses/);
    expect(() => scenario({ services: 1, endpointsPerService: 1.5 })).toThrow(/non-negative integer/);
  });
});

describe('scenarioViolations', () => {
  const base = scenario({ services: 3, endpointsPerService: 2, nodes: 2, nodePortFraction: 1 });
  it('reports a duplicate NodePort, an address outside the plan and an oversized slice', () => {
    const [a, b] = base.services as [ServiceObject, ServiceObject];
    const dupPort = {
      ...b,
      spec: { ...b.spec, ports: [{ ...b.spec.ports[0]!, nodePort: a.spec.ports[0]!.nodePort! }] },
    };
    const badIP = { ...a, spec: { ...a.spec, clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1'] } };
    const slice = base.endpointSlices[0]!;
    const big = {
      ...slice,
      endpoints: Array.from({ length: 101 }, (_, i) => ({ ...slice.endpoints[0]!, addresses: [`198.18.0.${i + 2}`] })),
    };
    const broken = {
      ...base,
      services: [badIP, dupPort, ...base.services.slice(2)],
      endpointSlices: [big, ...base.endpointSlices.slice(1)],
    };
    const problems = scenarioViolations(broken).join('\n');
    expect(problems).toMatch(/used twice/);
    expect(problems).toMatch(/ClusterIP 10\.0\.0\.1 outside/);
    expect(problems).toMatch(/101 endpoints/);
  });
});
