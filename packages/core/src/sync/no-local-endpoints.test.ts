import { describe, expect, it } from 'vitest';
import { serviceKey, type IPFamily } from '../model/types.js';
import type { LocalService } from '../nodeview/types.js';
import {
  aLocalEndpoint,
  aLocalPort,
  aLocalService,
  aNodeLocalState,
  familyEndpoints,
} from '../../test/support/local-state-fixtures.js';
import { countNoLocalEndpoints, NoLocalEndpointsCounter } from './no-local-endpoints.js';

const remoteOnly = [aLocalEndpoint('198.18.1.1', false)];
const withLocal = [aLocalEndpoint('198.18.1.1', false), aLocalEndpoint('198.18.0.1', true)];

function svc(
  policy: { internal?: boolean; external?: boolean; name?: string },
  ...perPort: Array<Partial<Record<IPFamily, typeof remoteOnly>>>
): LocalService {
  return aLocalService(policy.name ?? 's', {
    internalPolicyLocal: policy.internal ?? false,
    externalPolicyLocal: policy.external ?? false,
    ports: perPort.map((fams, i) =>
      aLocalPort(`p${i}`, Object.fromEntries(Object.entries(fams).map(([f, eps]) => [f, familyEndpoints(eps, true)]))),
    ),
  });
}

describe('countNoLocalEndpoints', () => {
  it.each([
    { name: 'Cluster policies are never counted', svc: svc({}, { IPv4: remoteOnly }), v4: [0, 0] },
    {
      name: 'internal Local with remote endpoints only',
      svc: svc({ internal: true }, { IPv4: remoteOnly }),
      v4: [1, 0],
    },
    {
      name: 'external Local with remote endpoints only',
      svc: svc({ external: true }, { IPv4: remoteOnly }),
      v4: [0, 1],
    },
    { name: 'both Local', svc: svc({ internal: true, external: true }, { IPv4: remoteOnly }), v4: [1, 1] },
    { name: 'a local endpoint present', svc: svc({ internal: true, external: true }, { IPv4: withLocal }), v4: [0, 0] },
    {
      name: 'no endpoints at all (REJECT, not DROP)',
      svc: svc({ internal: true, external: true }, { IPv4: [] }),
      v4: [0, 0],
    },
    {
      name: 'each service port counts',
      svc: svc({ internal: true }, { IPv4: remoteOnly }, { IPv4: remoteOnly }),
      v4: [2, 0],
    },
    { name: 'per family', svc: svc({ internal: true }, { IPv4: withLocal, IPv6: remoteOnly }), v4: [0, 0], v6: [1, 0] },
  ])('$name', ({ svc: service, v4, v6 = [0, 0] }) => {
    const state = aNodeLocalState([service]);
    const count = (f: IPFamily) => {
      const c = countNoLocalEndpoints(state, f);
      return [c.internal, c.external];
    };
    expect(count('IPv4')).toEqual(v4);
    expect(count('IPv6')).toEqual(v6);
  });
});

describe('NoLocalEndpointsCounter (kept from the changed Services)', () => {
  const named = (
    name: string,
    policy: { internal?: boolean; external?: boolean },
    ...ports: Parameters<typeof svc>[1][]
  ) => svc({ ...policy, name }, ...ports);
  const a = named('a', { internal: true, external: true }, { IPv4: remoteOnly, IPv6: remoteOnly });
  const aLocal = named('a', { internal: true, external: true }, { IPv4: withLocal, IPv6: remoteOnly });
  const aCluster = named('a', {}, { IPv4: remoteOnly });
  const b = named('b', { internal: true }, { IPv4: remoteOnly }, { IPv4: remoteOnly });
  const c = named('c', { external: true }, { IPv6: remoteOnly });
  const d = named('d', {}, { IPv4: remoteOnly });
  const sorted = (services: LocalService[]) => [...services].sort((x, y) => (x.key < y.key ? -1 : 1));

  /** Each step: the state's Services and which of them the step changed (undefined: a full sync). */
  it.each([
    {
      name: 'Services added one by one',
      steps: [
        [[a], ['a']],
        [[a, b], ['b']],
        [
          [a, b, c, d],
          ['c', 'd'],
        ],
      ],
    },
    {
      name: 'a local endpoint appears, then goes',
      steps: [
        [[a, b], undefined],
        [[aLocal, b], ['a']],
        [[a, b], ['a']],
      ],
    },
    {
      name: 'a Service removed, then added back',
      steps: [
        [[a, b, c], undefined],
        [[b, c], ['a']],
        [[a, b, c], ['a']],
      ],
    },
    {
      name: 'the only counted Service removed, then the last one',
      steps: [
        [[c], undefined],
        [[], ['c']],
        [[c], ['c']],
      ],
    },
    {
      name: 'the policy changes to Cluster and back',
      steps: [
        [[a, c], undefined],
        [[aCluster, c], ['a']],
        [[a, c], ['a']],
      ],
    },
    {
      name: 'a changed key no state ever held',
      steps: [
        [[a], undefined],
        [[a], ['zz']],
      ],
    },
    {
      name: 'a full recount after partial ones',
      steps: [
        [[a], undefined],
        [[a, b], ['b']],
        [[b, c], undefined],
        [[b], ['c']],
      ],
    },
  ] as { name: string; steps: [LocalService[], string[] | undefined][] }[])(
    '$name: equals a full count after every step',
    ({ steps }) => {
      const counter = new NoLocalEndpointsCounter();
      for (const [services, changed] of steps) {
        const state = aNodeLocalState(sorted(services));
        counter.update(
          state,
          changed === undefined ? undefined : new Set(changed.map((n) => serviceKey('default', n))),
        );
        for (const family of ['IPv4', 'IPv6'] as const)
          expect(counter.count(family)).toEqual(countNoLocalEndpoints(state, family));
      }
    },
  );

  it('counts everything at its first update, whatever it is told changed', () => {
    const counter = new NoLocalEndpointsCounter();
    counter.update(aNodeLocalState(sorted([a, b])), new Set());
    expect(counter.count('IPv4')).toEqual({ internal: 3, external: 1 });
    expect(counter.count('IPv6')).toEqual({ internal: 1, external: 1 });
  });
});
