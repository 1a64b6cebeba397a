import { describe, expect, it } from 'vitest';
import type { EndpointSliceModel, ServiceModel } from '../model/types.js';
import { buildLocalService } from './build-local-service.js';
import { endpointString } from './ip.js';
import type { NodeContext } from './node-context.js';
import {
  aNodeContext,
  aPort,
  aService,
  aSlice,
  anEndpoint,
  OTHER_NODE,
  readyOn,
  slicePort,
  terminatingOn,
  THIS_NODE,
  unreadyOn,
} from './testing-fixtures.js';
import type { FamilyEndpoints, LocalEndpoint, LocalService } from './types.js';

const DUAL_STACK = { clusterIPs: ['198.19.0.1', '2001:db8:19::1'] };

/** `ip:port` of each endpoint: what most expectations compare. */
const eps = (list: readonly LocalEndpoint[] | undefined): string[] =>
  (list ?? []).map((e) => endpointString(e.ip, e.port));

function build(
  svc: ServiceModel,
  slices: readonly EndpointSliceModel[] = [],
  node: NodeContext = aNodeContext(),
): LocalService {
  const local = buildLocalService(svc, slices, node);
  if (local === undefined) throw new Error('expected the Service to be kept');
  return local;
}

/** The endpoints of the first port in one family. */
function v4(svc: LocalService, port = 0): FamilyEndpoints {
  const e = svc.ports[port]?.endpoints.IPv4;
  if (e === undefined) throw new Error('no IPv4 endpoints');
  return e;
}

describe('buildLocalService: which Services and families', () => {
  it.each([
    { name: 'no ClusterIP', clusterIPs: [] },
    { name: 'ClusterIP None (headless)', clusterIPs: ['None'] },
  ])('skips a Service with $name', ({ clusterIPs }) => {
    expect(buildLocalService(aService({ clusterIPs }), [], aNodeContext())).toBeUndefined();
  });

  it('single-stack: one family, with its own ClusterIP', () => {
    const svc = build(aService({ clusterIPs: ['198.19.0.7'] }));
    expect(svc.families).toEqual({
      IPv4: { clusterIP: '198.19.0.7', externalIPs: [], loadBalancerIPs: [], loadBalancerSourceRanges: [] },
    });
    expect(Object.keys(svc.ports[0]!.endpoints)).toEqual(['IPv4']);
  });

  it('dual-stack: each family gets its own ClusterIP and only its own slices', () => {
    const svc = build(aService(DUAL_STACK), [
      aSlice({ endpoints: [readyOn(OTHER_NODE, '198.18.0.1')] }),
      aSlice({ endpoints: [readyOn(OTHER_NODE, '2001:db8:18::1')] }),
    ]);
    expect(svc.families.IPv4?.clusterIP).toBe('198.19.0.1');
    expect(svc.families.IPv6?.clusterIP).toBe('2001:db8:19::1');
    expect(eps(svc.ports[0]!.endpoints.IPv4?.internal)).toEqual(['198.18.0.1:8080']);
    expect(eps(svc.ports[0]!.endpoints.IPv6?.internal)).toEqual(['[2001:db8:18::1]:8080']);
  });

  it('ignores slices of a family the Service has no ClusterIP in', () => {
    const svc = build(aService(), [aSlice({ endpoints: [readyOn(OTHER_NODE, '2001:db8:18::1')] })]);
    expect(svc.ports[0]!.endpoints.IPv6).toBeUndefined();
    expect(v4(svc).hasAnyEndpoints).toBe(false);
  });

  it('keys ports as namespace/name:port/protocol and copies affinity and health-check port', () => {
    const svc = build(
      aService({
        ports: [aPort({ name: 'http' })],
        sessionAffinity: { type: 'ClientIP', timeoutSeconds: 10800 },
        healthCheckNodePort: 30999,
      }),
    );
    expect(svc.ports[0]!.key).toBe('default/web:http/TCP');
    expect(svc.sessionAffinity).toEqual({ type: 'ClientIP', timeoutSeconds: 10800 });
    expect(svc.healthCheckNodePort).toBe(30999);
  });

  it('carries preserve-destination only when the Service has it', () => {
    expect(build(aService({ preserveDestination: true })).preserveDestination).toBe(true);
    expect(build(aService())).not.toHaveProperty('preserveDestination');
  });
});

describe('buildLocalService: addresses per family', () => {
  const node = aNodeContext({ addresses: ['198.18.255.1', '2001:db8:ff::1'] });
  const lbService = aService({
    ...DUAL_STACK,
    type: 'LoadBalancer',
    externalIPs: ['2001:db8:71::fa', '203.0.113.250'],
    loadBalancerIPs: ['2001:db8:71::1', '203.0.113.1'],
    loadBalancerSourceRanges: ['10.0.0.0/8', '2001:db8:aaaa::/48'],
  });

  it('external IPs, LB IPs and source ranges are split by family', () => {
    const local = build(lbService, [], node);
    expect(local.families).toEqual({
      IPv4: {
        clusterIP: '198.19.0.1',
        externalIPs: ['203.0.113.250'],
        loadBalancerIPs: ['203.0.113.1'],
        loadBalancerSourceRanges: ['10.0.0.0/8'],
      },
      IPv6: {
        clusterIP: '2001:db8:19::1',
        externalIPs: ['2001:db8:71::fa'],
        loadBalancerIPs: ['2001:db8:71::1'],
        loadBalancerSourceRanges: ['2001:db8:aaaa::/48'],
      },
    });
  });

  it.each([
    {
      name: "the node's IP inside a source range adds the family's LB IPs as host CIDRs",
      ranges: ['198.18.255.0/24', '2001:db8:ff::/64'],
      ipv4: ['198.18.255.0/24', '203.0.113.1/32'],
      ipv6: ['2001:db8:71::1/128', '2001:db8:ff::/64'],
    },
    {
      name: 'the rule applies per family: only the family whose node IP is allowed gains LB sources',
      ranges: ['198.18.0.0/16', '2001:db8:aaaa::/48'],
      ipv4: ['198.18.0.0/16', '203.0.113.1/32'],
      ipv6: ['2001:db8:aaaa::/48'],
    },
    {
      name: 'an LB IP already inside an allowed range is not added again: the list stays disjoint (nft interval sets refuse overlaps)',
      ranges: ['198.18.0.0/16', '203.0.113.0/25'],
      ipv4: ['198.18.0.0/16', '203.0.113.0/25'],
      ipv6: [],
    },
    {
      name: 'a range nested in another, or given twice, adds nothing and is dropped',
      ranges: ['10.0.0.0/8', '10.1.0.0/16', '10.1.0.0/16', '2001:db8::/32', '2001:db8:aaaa::/48'],
      ipv4: ['10.0.0.0/8'],
      ipv6: ['2001:db8::/32'],
    },
  ])('$name', ({ ranges, ipv4, ipv6 }) => {
    const local = build({ ...lbService, loadBalancerSourceRanges: ranges }, [], node);
    expect(local.families.IPv4?.loadBalancerSourceRanges).toEqual(ipv4);
    expect(local.families.IPv6?.loadBalancerSourceRanges).toEqual(ipv6);
  });

  it('a single-stack Service drops addresses of the other family', () => {
    const local = build({ ...lbService, clusterIPs: ['198.19.0.1'] }, [], node);
    expect(local.families.IPv6).toBeUndefined();
    expect(local.families.IPv4?.externalIPs).toEqual(['203.0.113.250']);
  });

  it.each([
    { name: 'NodePort keeps its node port', type: 'NodePort' as const, nodePort: 30080 },
    { name: 'LoadBalancer keeps its node port', type: 'LoadBalancer' as const, nodePort: 30080 },
    { name: 'ClusterIP never exposes a node port', type: 'ClusterIP' as const, nodePort: 0 },
  ])('$name', ({ type, nodePort }) => {
    const local = build(aService({ type, ports: [aPort({ nodePort: 30080 })] }));
    expect(local.ports[0]!.nodePort).toBe(nodePort);
    expect(local.externallyAccessible).toBe(nodePort > 0);
  });

  it.each([
    { name: 'an external IP', overrides: { externalIPs: ['203.0.113.250'] } },
    { name: 'a load-balancer IP', overrides: { type: 'LoadBalancer' as const, loadBalancerIPs: ['203.0.113.1'] } },
  ])('is externally accessible through $name alone', ({ overrides }) => {
    expect(build(aService(overrides)).externallyAccessible).toBe(true);
  });
});

describe('buildLocalService: endpoints of a port', () => {
  it('no endpoints: hasAnyEndpoints false (REJECT)', () => {
    const fe = v4(build(aService()));
    expect(fe).toMatchObject({ hasAnyEndpoints: false, internal: [], external: [], allReachable: [] });
  });

  it('sorts by ip:port and marks endpoints on this node local', () => {
    const fe = v4(
      build(aService(), [
        aSlice({
          endpoints: [readyOn(OTHER_NODE, '198.18.0.9'), readyOn(THIS_NODE, '198.18.0.10'), anEndpoint('198.18.0.2')],
        }),
      ]),
    );
    expect(eps(fe.internal)).toEqual(['198.18.0.10:8080', '198.18.0.2:8080', '198.18.0.9:8080']);
    expect(fe.internal.map((e) => e.isLocal)).toEqual([true, false, false]);
  });

  it('takes the target port from the slice port, and drops slice ports numbered 0', () => {
    const svc = aService({ ports: [aPort({ name: 'http', targetPort: 'web' })] });
    const fe = v4(
      build(svc, [
        aSlice({ name: 'a', ports: [slicePort(8080, 'http')], endpoints: [anEndpoint('198.18.0.1')] }),
        aSlice({ name: 'b', ports: [slicePort(0, 'http')], endpoints: [anEndpoint('198.18.0.2')] }),
      ]),
    );
    expect(eps(fe.internal)).toEqual(['198.18.0.1:8080']);
  });

  it('named target port resolving to different numbers in two slices', () => {
    const svc = aService({ ports: [aPort({ name: 'http', targetPort: 'web' })] });
    const fe = v4(
      build(svc, [
        aSlice({ name: 'old', ports: [slicePort(8080, 'http')], endpoints: [anEndpoint('198.18.0.1')] }),
        aSlice({ name: 'new', ports: [slicePort(9090, 'http')], endpoints: [anEndpoint('198.18.0.2')] }),
      ]),
    );
    expect(eps(fe.internal)).toEqual(['198.18.0.1:8080', '198.18.0.2:9090']);
  });

  it.each([
    { name: 'terminating copy in the first slice', first: true },
    { name: 'terminating copy in the second slice', first: false },
  ])('duplicate ip:port across slices keeps the non-terminating copy ($name)', ({ first }) => {
    const terminatingSlice = aSlice({ name: first ? 'a' : 'z', endpoints: [terminatingOn(OTHER_NODE, '198.18.0.1')] });
    const readySlice = aSlice({ name: first ? 'z' : 'a', endpoints: [readyOn(OTHER_NODE, '198.18.0.1')] });
    const fe = v4(build(aService(), [terminatingSlice, readySlice]));
    expect(fe.serving).toHaveLength(1);
    expect(fe.internal.map((e) => [e.ip, e.ready, e.terminating])).toEqual([['198.18.0.1', true, false]]);
  });

  it('TCP, UDP and SCTP on the same port number each take the slice port of their protocol', () => {
    const svc = aService({
      ports: [
        aPort({ name: 'tcp', protocol: 'TCP' }),
        aPort({ name: 'udp', protocol: 'UDP' }),
        aPort({ name: 'sctp', protocol: 'SCTP' }),
      ],
    });
    const local = build(svc, [
      aSlice({ name: 'a', ports: [slicePort(53, 'tcp', 'TCP')], endpoints: [anEndpoint('198.18.0.1')] }),
      aSlice({ name: 'b', ports: [slicePort(53, 'udp', 'UDP')], endpoints: [anEndpoint('198.18.0.2')] }),
      aSlice({ name: 'c', ports: [slicePort(53, 'sctp', 'SCTP')], endpoints: [anEndpoint('198.18.0.3')] }),
      // Same name, wrong protocol: never matches.
      aSlice({ name: 'd', ports: [slicePort(53, 'tcp', 'UDP')], endpoints: [anEndpoint('198.18.0.4')] }),
    ]);
    expect(local.ports.map((p) => [p.key, eps(p.endpoints.IPv4?.internal)])).toEqual([
      ['default/web:tcp/TCP', ['198.18.0.1:53']],
      ['default/web:udp/UDP', ['198.18.0.2:53']],
      ['default/web:sctp/SCTP', ['198.18.0.3:53']],
    ]);
  });

  it('multi-port Service: each port goes only to the pods exposing it', () => {
    const svc = aService({ ports: [aPort({ name: 'p80', port: 80 }), aPort({ name: 'p81', port: 81 })] });
    const local = build(svc, [
      aSlice({ name: 'a', ports: [slicePort(100, 'p80')], endpoints: [anEndpoint('198.18.0.1')] }),
      aSlice({ name: 'b', ports: [slicePort(101, 'p81')], endpoints: [anEndpoint('198.18.0.2')] }),
    ]);
    expect(eps(v4(local, 0).internal)).toEqual(['198.18.0.1:100']);
    expect(eps(v4(local, 1).internal)).toEqual(['198.18.0.2:101']);
  });

  it('serving lists every serving endpoint, whatever the policy', () => {
    const svc = aService({ internalTrafficPolicy: 'Local' });
    const fe = v4(
      build(svc, [
        aSlice({
          endpoints: [
            readyOn(OTHER_NODE, '198.18.0.1'),
            terminatingOn(OTHER_NODE, '198.18.0.2'),
            unreadyOn(OTHER_NODE, '198.18.0.3'),
          ],
        }),
      ]),
    );
    expect(eps(fe.internal)).toEqual([]);
    expect(eps(fe.serving)).toEqual(['198.18.0.1:8080', '198.18.0.2:8080']);
  });
});

describe('buildLocalService: traffic policies', () => {
  const mixed = [aSlice({ endpoints: [readyOn(THIS_NODE, '198.18.0.1'), readyOn(OTHER_NODE, '198.18.0.2')] })];
  const remoteOnly = [aSlice({ endpoints: [readyOn(OTHER_NODE, '198.18.0.2')] })];
  const nodePortSvc = { type: 'NodePort' as const, ports: [aPort({ nodePort: 30080 })] };

  it('ETP Local: external uses local endpoints, internal the cluster ones', () => {
    const local = build(aService({ ...nodePortSvc, externalTrafficPolicy: 'Local' }), mixed);
    expect(local.externalPolicyLocal).toBe(true);
    expect(eps(v4(local).external)).toEqual(['198.18.0.1:8080']);
    expect(eps(v4(local).internal)).toEqual(['198.18.0.1:8080', '198.18.0.2:8080']);
  });

  it('ETP Local without local endpoints: external empty while endpoints exist (DROP)', () => {
    const fe = v4(build(aService({ ...nodePortSvc, externalTrafficPolicy: 'Local' }), remoteOnly));
    expect(fe.external).toEqual([]);
    expect(fe.hasAnyEndpoints).toBe(true);
    expect(eps(fe.cluster)).toEqual(['198.18.0.2:8080']);
  });

  it('ETP Local on a Service with no external address means nothing', () => {
    const local = build(aService({ externalTrafficPolicy: 'Local' }), mixed);
    expect(local.externalPolicyLocal).toBe(false);
    expect(v4(local).local).toEqual([]);
  });

  it('ETP Local is judged per family: a family without LB IP or node port uses Cluster endpoints', () => {
    const svc = aService({
      ...DUAL_STACK,
      type: 'LoadBalancer',
      loadBalancerIPs: ['203.0.113.1'],
      externalTrafficPolicy: 'Local',
    });
    const local = build(svc, [
      ...mixed,
      aSlice({ endpoints: [readyOn(THIS_NODE, '2001:db8:18::1'), readyOn(OTHER_NODE, '2001:db8:18::2')] }),
    ]);
    expect(eps(local.ports[0]!.endpoints.IPv4?.external)).toEqual(['198.18.0.1:8080']);
    expect(eps(local.ports[0]!.endpoints.IPv6?.external)).toHaveLength(2);
    expect(local.ports[0]!.endpoints.IPv6?.local).toEqual([]);
  });

  it('ITP Local: internal uses local endpoints, external still the cluster ones', () => {
    const local = build(aService({ ...nodePortSvc, internalTrafficPolicy: 'Local' }), mixed);
    expect(local.internalPolicyLocal).toBe(true);
    expect(eps(v4(local).internal)).toEqual(['198.18.0.1:8080']);
    expect(eps(v4(local).external)).toEqual(['198.18.0.1:8080', '198.18.0.2:8080']);
  });

  it('ITP Local without local endpoints: internal empty while endpoints exist (DROP)', () => {
    const fe = v4(build(aService({ internalTrafficPolicy: 'Local' }), remoteOnly));
    expect(fe.internal).toEqual([]);
    expect(fe.hasAnyEndpoints).toBe(true);
  });

  it('terminating fallback: internal uses serving+terminating endpoints when none is ready', () => {
    const slice = aSlice({ endpoints: [terminatingOn(OTHER_NODE, '198.18.0.1'), unreadyOn(OTHER_NODE, '198.18.0.2')] });
    const fe = v4(build(aService(), [slice]));
    expect(eps(fe.internal)).toEqual(['198.18.0.1:8080']);
  });

  it('terminating fallback is independent for local: ETP Local uses the local terminating pod', () => {
    const fe = v4(
      build(aService({ ...nodePortSvc, externalTrafficPolicy: 'Local' }), [
        aSlice({ endpoints: [terminatingOn(THIS_NODE, '198.18.0.1'), readyOn(OTHER_NODE, '198.18.0.2')] }),
      ]),
    );
    expect(eps(fe.external)).toEqual(['198.18.0.1:8080']);
    expect(eps(fe.internal)).toEqual(['198.18.0.2:8080']);
    expect(eps(fe.allReachable)).toEqual(['198.18.0.1:8080', '198.18.0.2:8080']);
  });

  it("topology: zone hints follow the node's zone", () => {
    const slices = [
      aSlice({
        endpoints: [
          readyOn(OTHER_NODE, '198.18.0.1', { zoneHints: ['zone-a'] }),
          readyOn(OTHER_NODE, '198.18.0.2', { zoneHints: ['zone-b'] }),
        ],
      }),
    ];
    expect(eps(v4(build(aService(), slices, aNodeContext({ zone: 'zone-b' }))).internal)).toEqual(['198.18.0.2:8080']);
    expect(eps(v4(build(aService(), slices, aNodeContext())).internal)).toHaveLength(2);
  });
});

describe('buildLocalService: health-check count', () => {
  it.each([
    {
      name: 'counts local ready endpoints',
      endpoints: [readyOn(THIS_NODE, '198.18.0.1'), readyOn(THIS_NODE, '198.18.0.2')],
      count: 2,
    },
    { name: 'never counts terminating ones', endpoints: [terminatingOn(THIS_NODE, '198.18.0.1')], count: 0 },
    { name: 'never counts remote ones', endpoints: [readyOn(OTHER_NODE, '198.18.0.1')], count: 0 },
  ])('$name', ({ endpoints, count }) => {
    expect(build(aService(), [aSlice({ endpoints })]).localReadyEndpoints).toBe(count);
  });

  it('counts distinct IPs across ports', () => {
    const svc = aService({ ports: [aPort({ name: 'a', port: 80 }), aPort({ name: 'b', port: 81 })] });
    const local = build(svc, [
      aSlice({ ports: [slicePort(8080, 'a'), slicePort(8081, 'b')], endpoints: [readyOn(THIS_NODE, '198.18.0.1')] }),
    ]);
    expect(local.localReadyEndpoints).toBe(1);
  });
});

describe('buildLocalService: external reachability and policy per port and family', () => {
  // Upstream judges both per service port and per single-family proxier; backends read them here.
  const svc = build(
    aService({
      ...DUAL_STACK,
      type: 'NodePort',
      externalTrafficPolicy: 'Local',
      externalIPs: ['203.0.113.5'],
      ports: [aPort({ name: 'np', port: 80, nodePort: 30080 }), aPort({ name: 'plain', port: 81, nodePort: 0 })],
    }),
  );
  it.each([
    ['np', 'IPv4', true, true],
    ['np', 'IPv6', true, true],
    ['plain', 'IPv4', true, true],
    ['plain', 'IPv6', false, false],
  ] as const)('port %s, %s: externallyAccessible %s, externalPolicyLocal %s', (name, family, accessible, local) => {
    const fe = svc.ports.find((p) => p.name === name)!.endpoints[family]!;
    expect([fe.externallyAccessible, fe.externalPolicyLocal]).toEqual([accessible, local]);
  });
  it('Cluster policy: accessible ports are not Local', () => {
    const cluster = build(aService({ type: 'NodePort', ports: [aPort({ nodePort: 30080 })] }));
    expect(cluster.ports[0]!.endpoints.IPv4).toMatchObject({ externallyAccessible: true, externalPolicyLocal: false });
  });
});
