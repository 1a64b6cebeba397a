import { describe, expect, it } from 'vitest';
import type { IPFamily } from '../model/types.js';
import type { LocalService } from '../nodeview/types.js';
import { aLocalEndpoint, aLocalPort, aLocalService, aNodeLocalState, familyEndpoints } from './local-state-fixtures.js';
import { countNoLocalEndpoints } from './no-local-endpoints.js';

const remoteOnly = [aLocalEndpoint('198.18.1.1', false)];
const withLocal = [aLocalEndpoint('198.18.1.1', false), aLocalEndpoint('198.18.0.1', true)];

function svc(
  policy: { internal?: boolean; external?: boolean },
  ...perPort: Array<Partial<Record<IPFamily, typeof remoteOnly>>>
): LocalService {
  return aLocalService('s', {
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
