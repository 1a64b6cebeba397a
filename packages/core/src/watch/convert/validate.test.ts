import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convertEndpointSlice, convertNode, convertService, convertServiceCIDR } from './index.js';
import { nodeProblems, OBJECT_LIMITS, serviceCIDRProblems, serviceProblems, sliceProblems } from './validate.js';
import type { ServiceModel } from '../../model/types.js';
import { cpuTimeMs } from '../../../test/support/cpu-clock.js';

const svc: ServiceModel = {
  namespace: 'shop',
  name: 'front',
  type: 'LoadBalancer',
  clusterIPs: ['198.19.0.10', '2001:db8::10'],
  externalIPs: ['203.0.113.5'],
  loadBalancerIPs: ['203.0.113.10'],
  loadBalancerSourceRanges: ['203.0.113.0/24'],
  ports: [{ name: 'https', protocol: 'TCP', port: 443, nodePort: 30443, targetPort: 'https' }],
  sessionAffinity: { type: 'ClientIP', timeoutSeconds: 60 },
  externalTrafficPolicy: 'Local',
  internalTrafficPolicy: 'Cluster',
  healthCheckNodePort: 32000,
};

describe('serviceProblems', () => {
  it('accepts a valid Service', () => {
    expect(serviceProblems(svc)).toEqual([]);
  });

  it.each([
    ['a newline in an IP', { clusterIPs: ['198.19.0.10\n-A INPUT -j DROP'] }, 'clusterIPs[0]'],
    ['a non-canonical IP', { externalIPs: ['2001:DB8::1'] }, 'externalIPs[0]'],
    ['a CIDR as an IP', { loadBalancerIPs: ['203.0.113.0/24'] }, 'loadBalancerIPs[0]'],
    ['host bits in a range', { loadBalancerSourceRanges: ['203.0.113.7/24'] }, 'loadBalancerSourceRanges[0]'],
    ['a port out of range', { ports: [{ ...svc.ports[0]!, port: 70000 }] }, 'ports[0].port'],
    ['an unknown protocol', { ports: [{ ...svc.ports[0]!, protocol: 'ICMP' }] }, 'ports[0].protocol'],
    ['a named target port with a space', { ports: [{ ...svc.ports[0]!, targetPort: 'a b' }] }, 'ports[0].targetPort'],
    ['three ClusterIPs', { clusterIPs: ['198.19.0.1', '198.19.0.2', '198.19.0.3'] }, 'clusterIPs'],
    ['a name with a newline', { name: 'front\nx' }, 'name'],
    ['a control character', { trafficDistribution: 'Prefer\u0000Close' }, 'trafficDistribution'],
    ['an affinity of 0 s', { sessionAffinity: { type: 'ClientIP', timeoutSeconds: 0 } }, 'sessionAffinity'],
    ['preserveDestination that is not true', { preserveDestination: 'yes' }, 'preserveDestination'],
  ])('refuses %s', (_, patch, path) => {
    const problems = serviceProblems({ ...svc, ...patch } as ServiceModel);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${path.replace(/[[\].]/g, '\\$&')}`));
  });

  it('refuses an absurd count without reading the entries, and keeps the problem list short', () => {
    const ranges = new Array<string>(OBJECT_LIMITS.listEntries + 1).fill('bad');
    expect(serviceProblems({ ...svc, loadBalancerSourceRanges: ranges })).toEqual([
      `loadBalancerSourceRanges: must have at most ${OBJECT_LIMITS.listEntries} entries, got ${ranges.length}`,
    ]);
    const problems = serviceProblems({ ...svc, externalIPs: new Array<string>(5000).fill('x') });
    expect(problems).toHaveLength(11);
    expect(problems[10]).toBe('... and 4990 more');
  });
});

describe('the other kinds', () => {
  it('refuses an endpoint of the other family, a node label with a newline, a non-canonical ServiceCIDR', () => {
    const slice = { namespace: 'shop', name: 'front-1', serviceName: 'front', addressType: 'IPv4' as const, ports: [] };
    expect(sliceProblems({ ...slice, endpoints: [] })).toEqual([]);
    expect(
      sliceProblems({
        ...slice,
        endpoints: [{ address: '2001:db8::1', ready: true, serving: true, terminating: false }],
      }),
    ).toEqual(['endpoints[0].address: must be an IPv4 address']);
    const node = { name: 'node-a', labels: {}, podCIDRs: [], addresses: ['198.18.0.1'], eligible: true };
    expect(nodeProblems(node)).toEqual([]);
    expect(nodeProblems({ ...node, labels: { 'kubernetes.io/hostname': 'a\nb' } })).toHaveLength(1);
    expect(serviceCIDRProblems({ name: 'kubernetes', cidrs: ['198.19.0.0/16'] })).toEqual([]);
    expect(serviceCIDRProblems({ name: 'kubernetes', cidrs: ['198.19.0.1/16'] })).toHaveLength(1);
  });
});

describe('the conversion checks free-form text as the shared checks do (it does not check its result again)', () => {
  const rawService = (trafficDistribution: string) => ({
    metadata: { name: 'front', namespace: 'shop' },
    spec: { clusterIP: '198.19.0.10', ports: [{ port: 80 }], trafficDistribution },
  });
  const rawSlice = (endpoint: Record<string, unknown>) => ({
    metadata: { name: 'front-1', namespace: 'shop', labels: { 'kubernetes.io/service-name': 'front' } },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['198.18.0.5'], ...endpoint }],
  });
  const rawNode = (labels: Record<string, string>) => ({
    metadata: { name: 'node-a', labels },
    status: { addresses: [{ type: 'InternalIP', address: '198.18.255.1' }] },
  });
  const long = 'z'.repeat(OBJECT_LIMITS.textLength + 1);
  it.each([
    ['trafficDistribution', convertService(rawService('Prefer\nClose')), 'spec.trafficDistribution'],
    ['trafficDistribution', convertService(rawService(long)), 'spec.trafficDistribution'],
    ['an endpoint zone', convertEndpointSlice(rawSlice({ zone: 'zone-a\n-A INPUT' })), 'endpoints[0].zone'],
    ['an endpoint zone', convertEndpointSlice(rawSlice({ zone: long })), 'endpoints[0].zone'],
    [
      'a zone hint',
      convertEndpointSlice(rawSlice({ hints: { forZones: [{ name: 'a\u0000b' }] } })),
      'endpoints[0].hints.forZones[0].name',
    ],
    [
      'a node hint',
      convertEndpointSlice(rawSlice({ hints: { forNodes: [{ name: long }] } })),
      'endpoints[0].hints.forNodes[0].name',
    ],
    [
      'a topology label value',
      convertNode(rawNode({ 'topology.kubernetes.io/zone': 'a\rb' })),
      'metadata.labels.topology.kubernetes.io/zone',
    ],
    [
      'a topology label key',
      convertNode(rawNode({ 'topology.kubernetes.io/z\u007f': 'a' })),
      'metadata.labels.topology.kubernetes.io/z\u007f key',
    ],
  ])('refuses %s with a control character or over the length limit', (_, result, path) => {
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0]!.startsWith(`${path}: must`)).toBe(true);
  });

  it('keeps ordinary text, and labels the proxy does not use are not read', () => {
    const service = convertService(rawService('PreferClose'));
    expect(service.ok && service.value?.trafficDistribution).toBe('PreferClose');
    const slice = convertEndpointSlice(rawSlice({ zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }] } }));
    expect(slice.ok && slice.value.slice?.endpoints[0]).toMatchObject({ zone: 'zone-a', zoneHints: ['zone-a'] });
    const node = convertNode(rawNode({ 'topology.kubernetes.io/zone': 'zone-a', other: 'a\nb' }));
    expect(node.ok && node.value.labels).toEqual({ 'topology.kubernetes.io/zone': 'zone-a' });
  });
});

// Hostile API objects: valid shapes, bad values, absurd strings and lists; every field optional.
const text = fc.oneof(
  fc.constantFrom('', 'a', 'front', '198.19.0.1', '2001:db8::1', '203.0.113.0/24', 'None', 'TCP', 'UDP', 'Local'),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('198.19.0.1\n-A INPUT -j DROP', ' 198.19.0.1', '198.19.0.1/33', 'a'.repeat(300)),
);
const scalar = fc.oneof(text, fc.integer({ min: -70000, max: 70000 }), fc.boolean(), fc.constant(null), fc.double());
const ipish = fc.oneof(
  fc.ipV4(),
  fc.ipV6(),
  fc.ipV4().map((ip) => `${ip}/${ip.length % 33}`),
  text,
);
const listOf = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof(fc.array(arb, { maxLength: 6 }), fc.array(arb, { maxLength: 2000 }));
const port = fc.record(
  {
    name: text,
    protocol: fc.oneof(fc.constantFrom('TCP', 'UDP', 'SCTP'), text),
    port: scalar,
    nodePort: scalar,
    targetPort: scalar,
  },
  { requiredKeys: [] },
);
const metadata = fc.record(
  {
    name: fc.oneof(fc.constantFrom('front', 'a.b', 'node-a'), text),
    namespace: fc.oneof(fc.constant('shop'), text),
    labels: fc.oneof(
      fc.constant({ 'kubernetes.io/service-name': 'front' }),
      fc.dictionary(text, scalar, { maxKeys: 4 }),
    ),
  },
  { requiredKeys: [] },
);
const service = fc.record(
  {
    metadata,
    spec: fc.record(
      {
        type: fc.oneof(fc.constantFrom('ClusterIP', 'NodePort', 'LoadBalancer'), text),
        clusterIP: ipish,
        clusterIPs: listOf(ipish),
        externalIPs: listOf(ipish),
        loadBalancerSourceRanges: listOf(ipish),
        ports: listOf(port),
        sessionAffinity: fc.oneof(fc.constantFrom('None', 'ClientIP'), text),
        externalTrafficPolicy: text,
        healthCheckNodePort: scalar,
        trafficDistribution: text,
      },
      { requiredKeys: [] },
    ),
    status: fc.record({ loadBalancer: fc.record({ ingress: listOf(fc.record({ ip: ipish, ipMode: text })) }) }),
  },
  { requiredKeys: [] },
);
const slice = fc.record(
  {
    metadata,
    addressType: fc.oneof(fc.constantFrom('IPv4', 'IPv6', 'FQDN'), text),
    ports: listOf(port),
    endpoints: listOf(
      fc.record(
        {
          addresses: listOf(ipish),
          conditions: fc.record({ ready: scalar, serving: scalar, terminating: scalar }, { requiredKeys: [] }),
          nodeName: text,
          zone: text,
          hints: fc.record({ forZones: listOf(fc.record({ name: text })) }),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);
const node = fc.record(
  {
    metadata,
    spec: fc.record({ podCIDRs: listOf(ipish), podCIDR: ipish }, { requiredKeys: [] }),
    status: fc.record({
      addresses: listOf(fc.record({ type: fc.constantFrom('InternalIP', 'ExternalIP'), address: ipish })),
    }),
  },
  { requiredKeys: [] },
);
const serviceCIDR = fc.record({ metadata, spec: fc.record({ cidrs: listOf(ipish) }) }, { requiredKeys: [] });

/**
 * A generous bound for one synchronous conversion of an object of at most a few thousand entries:
 * linear code takes a few milliseconds, so only a pathological (superlinear) step could pass it.
 * In CPU time (test/support/cpu-clock.ts), which waiting for a core on a shared machine does not inflate. This
 * is a property of the code under fuzz, not a speed goal.
 */
const STALL_MS = 100;

describe('every API object is accepted and valid, or refused with a bounded list of problems', () => {
  const cases = [
    ['Service', service, (o: unknown) => convertService(o), (v: unknown) => serviceProblems(v as ServiceModel)],
    [
      'EndpointSlice',
      slice,
      (o: unknown) => convertEndpointSlice(o),
      (v: unknown) => {
        const s = (v as { slice: Parameters<typeof sliceProblems>[0] | null }).slice;
        return s ? sliceProblems(s) : [];
      },
    ],
    [
      'Node',
      node,
      (o: unknown) => convertNode(o),
      (v: unknown) => nodeProblems(v as Parameters<typeof nodeProblems>[0]),
    ],
    [
      'ServiceCIDR',
      serviceCIDR,
      (o: unknown) => convertServiceCIDR(o),
      (v: unknown) => serviceCIDRProblems(v as Parameters<typeof serviceCIDRProblems>[0]),
    ],
  ] as const;
  it.each(cases)('%s', (_, arb, convert, problems) => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(arb, (obj) => {
        const start = cpuTimeMs();
        const result = convert(obj);
        expect(cpuTimeMs() - start).toBeLessThan(STALL_MS);
        if (result.ok) {
          accepted++;
          if (result.value !== null) expect(problems(result.value)).toEqual([]);
        } else {
          refused++;
          expect(result.errors.length).toBeGreaterThan(0);
          expect(result.errors.length).toBeLessThanOrEqual(21);
        }
      }),
      { numRuns: 300 },
    );
    // The generator reaches both outcomes (a generator that only ever fails proves nothing).
    expect(accepted).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});
