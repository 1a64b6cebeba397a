import { describe, expect, it } from 'vitest';
import { buildLocalService } from './build-local-service.js';
import { localNodeEqual, localServiceEqual } from './equal.js';
import { localNodeOf } from './node-context.js';
import { aNode, aNodeContext, aPort, aService, aSlice, readyOn, terminatingOn, THIS_NODE } from './testing-fixtures.js';
import type { LocalService } from './types.js';

/** A deep-writable view of a state object, so each case can change exactly one field. */
type Mutable<T> = T extends readonly (infer U)[]
  ? Mutable<U>[]
  : T extends object
    ? { -readonly [K in keyof T]: Mutable<T[K]> }
    : T;

function sample(): LocalService {
  const svc = aService({
    clusterIPs: ['198.19.0.1', '2001:db8:19::1'],
    type: 'LoadBalancer',
    ports: [aPort({ name: 'http', nodePort: 30080 })],
    loadBalancerIPs: ['203.0.113.1'],
    loadBalancerSourceRanges: ['10.0.0.0/8'],
    externalTrafficPolicy: 'Local',
  });
  const local = buildLocalService(
    svc,
    [
      aSlice({
        ports: [{ name: 'http', protocol: 'TCP', port: 8080 }],
        endpoints: [readyOn(THIS_NODE, '198.18.0.1', { zone: 'z' }), terminatingOn('node-b', '198.18.0.2')],
      }),
    ],
    aNodeContext(),
  );
  if (local === undefined) throw new Error('sample must build');
  return local;
}

const mutations: readonly { name: string; mutate: (s: Mutable<LocalService>) => void }[] = [
  { name: 'type', mutate: (s) => void (s.type = 'NodePort') },
  { name: 'clusterIP', mutate: (s) => void (s.families.IPv4!.clusterIP = '198.19.0.2') },
  { name: 'a whole family', mutate: (s) => void delete s.families.IPv6 },
  { name: 'source ranges', mutate: (s) => void s.families.IPv4!.loadBalancerSourceRanges.push('11.0.0.0/8') },
  { name: 'affinity timeout', mutate: (s) => void (s.sessionAffinity = { type: 'ClientIP', timeoutSeconds: 1 }) },
  { name: 'externalPolicyLocal', mutate: (s) => void (s.externalPolicyLocal = false) },
  { name: 'healthCheckNodePort', mutate: (s) => void (s.healthCheckNodePort = 1) },
  { name: 'localReadyEndpoints', mutate: (s) => void (s.localReadyEndpoints = 7) },
  { name: 'preserveDestination', mutate: (s) => void (s.preserveDestination = true) },
  { name: 'nodePort', mutate: (s) => void (s.ports[0]!.nodePort = 30081) },
  { name: 'hasAnyEndpoints', mutate: (s) => void (s.ports[0]!.endpoints.IPv4!.hasAnyEndpoints = false) },
  { name: 'an endpoint port', mutate: (s) => void (s.ports[0]!.endpoints.IPv4!.external[0]!.port = 1) },
  { name: 'an endpoint zone', mutate: (s) => void delete s.ports[0]!.endpoints.IPv4!.cluster[0]!.zone },
  { name: 'the serving list', mutate: (s) => void s.ports[0]!.endpoints.IPv4!.serving.pop() },
  {
    name: 'the reachable list',
    mutate: (s) => void s.ports[0]!.endpoints.IPv4!.allReachable.push(s.ports[0]!.endpoints.IPv4!.serving[1]!),
  },
];

describe('localServiceEqual', () => {
  it('equal for a deep copy', () => {
    expect(localServiceEqual(sample(), structuredClone(sample()))).toBe(true);
  });

  it.each(mutations)('detects a change of $name', ({ mutate }) => {
    const copy = structuredClone(sample());
    mutate(copy as unknown as Mutable<LocalService>);
    expect(localServiceEqual(sample(), copy)).toBe(false);
    expect(localServiceEqual(copy, sample())).toBe(false);
  });
});

describe('localNodeEqual', () => {
  const base = localNodeOf(THIS_NODE, aNode(THIS_NODE, { zone: 'a', labels: { 'kubernetes.io/hostname': 'x' } }));
  it.each([
    { name: 'an equal copy', other: structuredClone(base), equal: true },
    {
      name: 'another label value',
      other: { ...base, labels: { ...base.labels, 'kubernetes.io/hostname': 'y' } },
      equal: false,
    },
    {
      name: 'a label swapped for another',
      other: { ...base, labels: { [Object.keys(base.labels)[0]!]: 'a', other: 'x' } },
      equal: false,
    },
    { name: 'other addresses', other: { ...base, addresses: ['198.18.255.9'] }, equal: false },
    { name: 'eligibility', other: { ...base, eligible: false }, equal: false },
  ])('$name', ({ other, equal }) => {
    expect(localNodeEqual(base, other)).toBe(equal);
  });
});
