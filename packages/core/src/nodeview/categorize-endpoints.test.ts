import { describe, expect, it } from 'vitest';
import { categorizeEndpoints, type EndpointCandidate, type EndpointPolicy } from './categorize-endpoints.js';

const NODE = 'node-a';
const ZONE = 'zone-a';

interface EpSpec {
  readonly local?: boolean;
  readonly state?: 'ready' | 'terminating' | 'terminating-not-serving' | 'unready';
  readonly zones?: readonly string[];
  readonly nodes?: readonly string[];
}

/** A candidate on port 80; `ip` stays short so expectations read as lists of names. */
function ep(ip: string, spec: EpSpec = {}): EndpointCandidate {
  const state = spec.state ?? 'ready';
  return {
    endpoint: {
      ip,
      port: 80,
      ready: state === 'ready',
      serving: state === 'ready' || state === 'terminating',
      terminating: state === 'terminating' || state === 'terminating-not-serving',
      isLocal: spec.local ?? false,
      nodeName: spec.local ? NODE : 'elsewhere',
    },
    ...(spec.zones ? { zoneHints: spec.zones } : {}),
    ...(spec.nodes ? { nodeHints: spec.nodes } : {}),
  };
}

const CLUSTER: EndpointPolicy = { internalPolicyLocal: false, externalPolicyLocal: false, externallyAccessible: false };
const CLUSTER_EXTERNAL: EndpointPolicy = { ...CLUSTER, externallyAccessible: true };
const ITP_LOCAL: EndpointPolicy = { ...CLUSTER, internalPolicyLocal: true };
const ETP_LOCAL: EndpointPolicy = { ...CLUSTER, externalPolicyLocal: true, externallyAccessible: true };
const ETP_LOCAL_NOT_EXPOSED: EndpointPolicy = { ...CLUSTER, externalPolicyLocal: true };

interface Case {
  readonly name: string;
  readonly endpoints: readonly EndpointCandidate[];
  readonly policy: EndpointPolicy;
  readonly zone?: string;
  readonly cluster: readonly string[];
  readonly local: readonly string[];
  readonly allReachable: readonly string[];
  readonly hasAnyEndpoints: boolean;
}

const cases: readonly Case[] = [
  {
    name: 'no endpoints at all: nothing to use, REJECT',
    endpoints: [],
    policy: ETP_LOCAL,
    cluster: [],
    local: [],
    allReachable: [],
    hasAnyEndpoints: false,
  },
  {
    name: 'Cluster policy uses every ready endpoint and computes no local set',
    endpoints: [ep('1.1.1.1', { local: true }), ep('1.1.1.2')],
    policy: CLUSTER,
    cluster: ['1.1.1.1', '1.1.1.2'],
    local: [],
    allReachable: ['1.1.1.1', '1.1.1.2'],
    hasAnyEndpoints: true,
  },
  {
    name: 'unready, non-terminating endpoints are never used',
    endpoints: [ep('1.1.1.1', { state: 'unready' }), ep('1.1.1.2')],
    policy: CLUSTER,
    cluster: ['1.1.1.2'],
    local: [],
    allReachable: ['1.1.1.2'],
    hasAnyEndpoints: true,
  },
  {
    name: 'only unready endpoints: hasAnyEndpoints false (REJECT)',
    endpoints: [ep('1.1.1.1', { state: 'unready' }), ep('1.1.1.2', { state: 'terminating-not-serving' })],
    policy: CLUSTER,
    cluster: [],
    local: [],
    allReachable: [],
    hasAnyEndpoints: false,
  },
  {
    name: 'cluster falls back to serving+terminating endpoints when nothing is ready anywhere',
    endpoints: [
      ep('1.1.1.1', { state: 'terminating' }),
      ep('1.1.1.2', { state: 'terminating-not-serving' }),
      ep('1.1.1.3', { state: 'unready' }),
    ],
    policy: CLUSTER,
    cluster: ['1.1.1.1'],
    local: [],
    allReachable: ['1.1.1.1'],
    hasAnyEndpoints: true,
  },
  {
    name: 'cluster ignores terminating endpoints while one ready endpoint exists',
    endpoints: [ep('1.1.1.1', { state: 'terminating' }), ep('1.1.1.2')],
    policy: CLUSTER,
    cluster: ['1.1.1.2'],
    local: [],
    allReachable: ['1.1.1.2'],
    hasAnyEndpoints: true,
  },
  {
    name: 'ITP Local, not externally accessible: local ready only, cluster unused',
    endpoints: [ep('1.1.1.1', { local: true }), ep('1.1.1.2')],
    policy: ITP_LOCAL,
    cluster: [],
    local: ['1.1.1.1'],
    allReachable: ['1.1.1.1'],
    hasAnyEndpoints: true,
  },
  {
    name: 'ITP Local with endpoints only elsewhere: empty local set but hasAnyEndpoints (DROP)',
    endpoints: [ep('1.1.1.2')],
    policy: ITP_LOCAL,
    cluster: [],
    local: [],
    allReachable: [],
    hasAnyEndpoints: true,
  },
  {
    name: 'ITP Local with only a remote serving+terminating endpoint still has endpoints (DROP, not REJECT)',
    endpoints: [ep('1.1.1.2', { state: 'terminating' })],
    policy: ITP_LOCAL,
    cluster: [],
    local: [],
    allReachable: [],
    hasAnyEndpoints: true,
  },
  {
    name: 'local falls back to local serving+terminating even while remote endpoints are ready',
    endpoints: [ep('1.1.1.1', { local: true, state: 'terminating' }), ep('1.1.1.2')],
    policy: ITP_LOCAL,
    cluster: [],
    local: ['1.1.1.1'],
    allReachable: ['1.1.1.1'],
    hasAnyEndpoints: true,
  },
  {
    name: 'local prefers local ready over local terminating',
    endpoints: [ep('1.1.1.1', { local: true, state: 'terminating' }), ep('1.1.1.3', { local: true })],
    policy: ITP_LOCAL,
    cluster: [],
    local: ['1.1.1.3'],
    allReachable: ['1.1.1.3'],
    hasAnyEndpoints: true,
  },
  {
    name: 'ETP Local: local ready for external traffic, cluster still computed for the short-circuit',
    endpoints: [ep('1.1.1.1', { local: true }), ep('1.1.1.2')],
    policy: ETP_LOCAL,
    cluster: ['1.1.1.1', '1.1.1.2'],
    local: ['1.1.1.1'],
    allReachable: ['1.1.1.1', '1.1.1.2'],
    hasAnyEndpoints: true,
  },
  {
    name: 'ETP Local with no local endpoint: empty local set, hasAnyEndpoints (external DROP)',
    endpoints: [ep('1.1.1.2')],
    policy: ETP_LOCAL,
    cluster: ['1.1.1.2'],
    local: [],
    allReachable: ['1.1.1.2'],
    hasAnyEndpoints: true,
  },
  {
    name: 'ETP Local on a port that is not externally accessible uses no local set',
    endpoints: [ep('1.1.1.1', { local: true }), ep('1.1.1.2')],
    policy: ETP_LOCAL_NOT_EXPOSED,
    cluster: ['1.1.1.1', '1.1.1.2'],
    local: [],
    allReachable: ['1.1.1.1', '1.1.1.2'],
    hasAnyEndpoints: true,
  },
  {
    name: 'ITP Local on an externally accessible port still computes cluster endpoints',
    endpoints: [ep('1.1.1.1', { local: true }), ep('1.1.1.2')],
    policy: { ...ITP_LOCAL, externallyAccessible: true },
    cluster: ['1.1.1.1', '1.1.1.2'],
    local: ['1.1.1.1'],
    allReachable: ['1.1.1.1', '1.1.1.2'],
    hasAnyEndpoints: true,
  },
  {
    name: 'ETP Local: local terminating fallback and remote ready cluster are decided independently; union reachable',
    endpoints: [ep('1.1.1.1', { local: true, state: 'terminating' }), ep('1.1.1.2')],
    policy: ETP_LOCAL,
    cluster: ['1.1.1.2'],
    local: ['1.1.1.1'],
    allReachable: ['1.1.1.1', '1.1.1.2'],
    hasAnyEndpoints: true,
  },
  {
    name: 'both sets fall back to terminating when nothing is ready anywhere',
    endpoints: [ep('1.1.1.1', { local: true, state: 'terminating' }), ep('1.1.1.2', { state: 'terminating' })],
    policy: ETP_LOCAL,
    cluster: ['1.1.1.1', '1.1.1.2'],
    local: ['1.1.1.1'],
    allReachable: ['1.1.1.1', '1.1.1.2'],
    hasAnyEndpoints: true,
  },
  {
    name: 'zone hints: every ready endpoint hinted and one for this zone -> cluster restricted to this zone',
    endpoints: [
      ep('1.1.1.1', { zones: [ZONE] }),
      ep('1.1.1.2', { zones: ['zone-b'] }),
      ep('1.1.1.3', { zones: ['zone-b', ZONE] }),
    ],
    policy: CLUSTER,
    zone: ZONE,
    cluster: ['1.1.1.1', '1.1.1.3'],
    local: [],
    allReachable: ['1.1.1.1', '1.1.1.3'],
    hasAnyEndpoints: true,
  },
  {
    name: 'zone hints are all-or-nothing: one ready endpoint without hints disables filtering',
    endpoints: [ep('1.1.1.1', { zones: [ZONE] }), ep('1.1.1.2')],
    policy: CLUSTER,
    zone: ZONE,
    cluster: ['1.1.1.1', '1.1.1.2'],
    local: [],
    allReachable: ['1.1.1.1', '1.1.1.2'],
    hasAnyEndpoints: true,
  },
  {
    name: 'an unready endpoint without hints does not disable filtering',
    endpoints: [
      ep('1.1.1.1', { zones: [ZONE] }),
      ep('1.1.1.2', { zones: ['zone-b'] }),
      ep('1.1.1.3', { state: 'unready' }),
    ],
    policy: CLUSTER,
    zone: ZONE,
    cluster: ['1.1.1.1'],
    local: [],
    allReachable: ['1.1.1.1'],
    hasAnyEndpoints: true,
  },
  {
    name: 'hints only for other zones: no filtering',
    endpoints: [ep('1.1.1.1', { zones: ['zone-b'] }), ep('1.1.1.2', { zones: ['zone-c'] })],
    policy: CLUSTER,
    zone: ZONE,
    cluster: ['1.1.1.1', '1.1.1.2'],
    local: [],
    allReachable: ['1.1.1.1', '1.1.1.2'],
    hasAnyEndpoints: true,
  },
  {
    name: 'a node without a zone label ignores zone hints',
    endpoints: [ep('1.1.1.1', { zones: [ZONE] }), ep('1.1.1.2', { zones: ['zone-b'] })],
    policy: CLUSTER,
    cluster: ['1.1.1.1', '1.1.1.2'],
    local: [],
    allReachable: ['1.1.1.1', '1.1.1.2'],
    hasAnyEndpoints: true,
  },
  {
    name: 'topology never filters the local set; reachable is the union of both',
    endpoints: [ep('1.1.1.1', { local: true, zones: ['zone-b'] }), ep('1.1.1.2', { zones: [ZONE] })],
    policy: ETP_LOCAL,
    zone: ZONE,
    cluster: ['1.1.1.2'],
    local: ['1.1.1.1'],
    allReachable: ['1.1.1.1', '1.1.1.2'],
    hasAnyEndpoints: true,
  },
  {
    name: 'an endpoint in both the topology-filtered cluster set and the local set is reachable once',
    endpoints: [
      ep('1.1.1.1', { local: true, zones: [ZONE] }),
      ep('1.1.1.2', { zones: ['zone-b'] }),
      ep('1.1.1.3', { zones: [ZONE] }),
    ],
    policy: ETP_LOCAL,
    zone: ZONE,
    cluster: ['1.1.1.1', '1.1.1.3'],
    local: ['1.1.1.1'],
    allReachable: ['1.1.1.1', '1.1.1.3'],
    hasAnyEndpoints: true,
  },
  {
    name: 'ITP Local ignores hints that would exclude the local endpoint',
    endpoints: [ep('1.1.1.1', { local: true, zones: ['zone-b'] }), ep('1.1.1.2', { zones: [ZONE] })],
    policy: ITP_LOCAL,
    zone: ZONE,
    cluster: [],
    local: ['1.1.1.1'],
    allReachable: ['1.1.1.1'],
    hasAnyEndpoints: true,
  },
  {
    name: 'node hints: every ready endpoint hinted and one for this node -> same node only',
    endpoints: [ep('1.1.1.1', { nodes: [NODE], zones: [ZONE] }), ep('1.1.1.2', { nodes: ['node-b'], zones: [ZONE] })],
    policy: CLUSTER,
    zone: ZONE,
    cluster: ['1.1.1.1'],
    local: [],
    allReachable: ['1.1.1.1'],
    hasAnyEndpoints: true,
  },
  {
    name: 'node hints naming only other nodes fall through to zone hints',
    endpoints: [
      ep('1.1.1.1', { nodes: ['node-c'], zones: [ZONE] }),
      ep('1.1.1.2', { nodes: ['node-b'], zones: ['zone-b'] }),
    ],
    policy: CLUSTER,
    zone: ZONE,
    cluster: ['1.1.1.1'],
    local: [],
    allReachable: ['1.1.1.1'],
    hasAnyEndpoints: true,
  },
  {
    name: 'node hints missing on one ready endpoint fall through to zone hints',
    endpoints: [ep('1.1.1.1', { nodes: [NODE], zones: ['zone-b'] }), ep('1.1.1.2', { zones: [ZONE] })],
    policy: CLUSTER,
    zone: ZONE,
    cluster: ['1.1.1.2'],
    local: [],
    allReachable: ['1.1.1.2'],
    hasAnyEndpoints: true,
  },
  {
    name: 'hinted endpoints all terminating: fallback ignores topology',
    endpoints: [
      ep('1.1.1.1', { state: 'terminating', zones: ['zone-b'] }),
      ep('1.1.1.2', { state: 'terminating', zones: [ZONE] }),
    ],
    policy: CLUSTER,
    zone: ZONE,
    cluster: ['1.1.1.1', '1.1.1.2'],
    local: [],
    allReachable: ['1.1.1.1', '1.1.1.2'],
    hasAnyEndpoints: true,
  },
  {
    name: 'Cluster ITP on an exposed port with a local endpoint: no local set',
    endpoints: [ep('1.1.1.1', { local: true })],
    policy: CLUSTER_EXTERNAL,
    cluster: ['1.1.1.1'],
    local: [],
    allReachable: ['1.1.1.1'],
    hasAnyEndpoints: true,
  },
];

const ips = (list: readonly { ip: string }[]): string[] => list.map((e) => e.ip);

describe('categorizeEndpoints', () => {
  it.each(cases)('$name', (c) => {
    const result = categorizeEndpoints(c.endpoints, c.policy, NODE, c.zone);
    expect({
      cluster: ips(result.cluster),
      local: ips(result.local),
      allReachable: ips(result.allReachable),
      hasAnyEndpoints: result.hasAnyEndpoints,
    }).toEqual({
      cluster: c.cluster,
      local: c.local,
      allReachable: c.allReachable,
      hasAnyEndpoints: c.hasAnyEndpoints,
    });
  });

  it('orders the union by the ip:port string, as upstream sorts endpoints', () => {
    // "1.1.1.10:80" sorts before "1.1.1.9:80": string order, not numeric.
    const input = [ep('1.1.1.10', { local: true, state: 'terminating' }), ep('1.1.1.9')];
    const result = categorizeEndpoints(input, ETP_LOCAL, NODE, undefined);
    expect(ips(result.allReachable)).toEqual(['1.1.1.10', '1.1.1.9']);
  });
});
