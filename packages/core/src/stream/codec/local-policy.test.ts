import { describe, expect, it } from 'vitest';
import type { NodeName } from '../../model/types.js';
import type { NodeLocalState } from '../../nodeview/types.js';
import { policyStateRefusals } from '../../policy/check.js';
import type { PeerGroup, PeerGroupKey, PodKey, PodPolicy, PolicyState } from '../../policy/types.js';
import { unionChanges } from '../changes.js';
import type { Delivery } from '../hub.js';
import { loadProto, toObjectOptions } from '../testdata/proto-reflection.js';
import { decodeResponse } from './envelope.js';
import { decodeLocalState, policyDecodeCache, type PolicyDecodeCache } from './local-decode.js';
import { encodeLocalStateResponse } from './local-encode.js';

const group = (s: string) => s as PeerGroupKey;
const NODE = { name: 'node-a' as NodeName, labels: {}, podCIDRs: [], addresses: [], eligible: true };

const server: PodPolicy = {
  namespace: 'default',
  name: 'server',
  ips: ['198.18.1.10', '2001:db8:1::10'],
  ingress: {
    isolated: true,
    allow: [
      {
        peers: { group: group('default/np/Ingress/0'), cidrs: ['203.0.113.0/25'] },
        ports: [{ protocol: 'TCP', port: 8080, endPort: 8090 }],
      },
      { peers: { cidrs: [] } }, // an ipBlock whose exceptions cover it: no peer at all
      { ports: [{ protocol: 'UDP', port: 0, endPort: 65535 }] }, // any peer, every UDP port
    ],
  },
  egress: { isolated: true, allow: [{ endpoints: group('default/np/Egress/0/named') }, {}] },
};
const open: PodPolicy = {
  namespace: 'default',
  name: 'open',
  ips: ['198.18.1.11'],
  ingress: { isolated: false, allow: [] },
  egress: { isolated: false, allow: [] },
};
const groups = new Map<PeerGroupKey, PeerGroup>([
  [group('default/np/Ingress/0'), { kind: 'ips', ips: ['198.18.2.5', '2001:db8:2::5'] }],
  [
    group('default/np/Egress/0/named'),
    { kind: 'endpoints', endpoints: [{ ip: '198.18.2.6', protocol: 'SCTP', port: 9000 }] },
  ],
]);
const policy: PolicyState = {
  pods: new Map([
    ['default/open' as PodKey, open],
    ['default/server' as PodKey, server],
  ]),
  groups,
};

function delivery(state: NodeLocalState): Delivery<NodeLocalState> {
  return {
    state,
    instanceId: 'i',
    revision: 3,
    changes: {
      updatedServices: new Set(),
      triggerTimes: new Map(),
      nodeChanged: false,
      policyChangedAt: 1_700_000_000_321,
    },
    full: false,
  };
}

function roundTrip(d: Delivery<NodeLocalState>, cache?: PolicyDecodeCache): Delivery<NodeLocalState> {
  const buf = encodeLocalStateResponse(d);
  const res = decodeResponse(buf);
  if (res.type !== 'state') throw new Error(`expected a state, got ${res.type}`);
  return decodeLocalState(buf, res.start, res.end, undefined, cache);
}

describe('the policy view on the node-local stream', () => {
  it('round-trips pods, groups, rule shapes (no peers, empty peers, every port) and the policy change time', () => {
    const d = delivery({ node: NODE, services: [], policy });
    expect(roundTrip(d)).toEqual(d);
  });

  it('says an empty view apart from none: has_policy', () => {
    const empty = delivery({ node: NODE, services: [], policy: { pods: new Map(), groups: new Map() } });
    expect(roundTrip(empty).state.policy).toEqual({ pods: new Map(), groups: new Map() });
    expect(roundTrip(delivery({ node: NODE, services: [] })).state.policy).toBeUndefined();
  });

  it("is what the .proto says (protobufjs reads the encoder's bytes)", () => {
    const WatchResponse = loadProto('kpng/localnet/v1/localnet.proto').lookupType('kpng.localnet.v1.WatchResponse');
    const obj = WatchResponse.toObject(
      WatchResponse.decode(encodeLocalStateResponse(delivery({ node: NODE, services: [], policy }))),
      toObjectOptions,
    );
    const state = obj['state'];
    expect(state.hasPolicy).toBe(true);
    expect(state.changes.policyChangedAtMs).toBe(1_700_000_000_321);
    expect(state.policyPods.map((p: { key: string }) => p.key)).toEqual(['default/open', 'default/server']);
    expect(state.policyPods[1].ingress.allow[0]).toMatchObject({
      peers: { group: 'default/np/Ingress/0', cidrs: ['203.0.113.0/25'] },
      ports: [{ protocol: 'PROTOCOL_TCP', port: 8080, endPort: 8090 }],
    });
    expect(state.peerGroups[1]).toMatchObject({
      key: 'default/np/Egress/0/named',
      named: true,
      endpoints: [{ ip: '198.18.2.6', protocol: 'PROTOCOL_SCTP', port: 9000 }],
    });
  });

  it('keeps the objects of unchanged pods and groups across states (the enforcer renders only what changed)', () => {
    const cache = policyDecodeCache();
    const first = roundTrip(delivery({ node: NODE, services: [], policy }), cache).state.policy!;
    const changed: PolicyState = {
      pods: policy.pods,
      groups: new Map([...groups, [group('default/np/Ingress/0'), { kind: 'ips', ips: ['198.18.2.7'] }]]),
    };
    const second = roundTrip(delivery({ node: NODE, services: [], policy: changed }), cache).state.policy!;
    expect(second.pods.get('default/server' as PodKey)).toBe(first.pods.get('default/server' as PodKey));
    expect(second.groups.get(group('default/np/Egress/0/named'))).toBe(
      first.groups.get(group('default/np/Egress/0/named')),
    );
    expect(second.groups.get(group('default/np/Ingress/0'))).toEqual({ kind: 'ips', ips: ['198.18.2.7'] });
  });

  it('keeps the earliest policy change when revisions are folded', () => {
    const base = { triggerTimes: new Map(), nodeChanged: false };
    expect(
      unionChanges([{ ...base, policyChangedAt: 20 }, base, { ...base, policyChangedAt: 10 }]).policyChangedAt,
    ).toBe(10);
    expect(unionChanges([base, base]).policyChangedAt).toBeUndefined();
  });

  it('refuses what could reach nft malformed: a bad address or CIDR, a port range, a missing or odd group', () => {
    expect(policyStateRefusals(policy)).toEqual([]);
    const bad: PolicyState = {
      pods: new Map([
        [
          'default/server' as PodKey,
          {
            ...server,
            ips: ['198.18.1.10\nflush ruleset'],
            ingress: {
              isolated: true,
              allow: [
                { peers: { group: group('default/np/Ingress/9'), cidrs: ['10.0.0.1/8'] } },
                { ports: [{ protocol: 'TCP', port: 90, endPort: 80 }] },
              ],
            },
          },
        ],
      ]),
      groups: new Map([[group('default/np/Ingress/0/named'), { kind: 'ips', ips: ['::ffff:1.2.3.4x'] }]]),
    };
    const refusals = policyStateRefusals(bad);
    expect(refusals.map((r) => r.kind)).toEqual(['NetworkPolicy', 'Pod']);
    expect(refusals[0]!.problems).toEqual([
      'key: a named-port group holds endpoints',
      'ips[0]: must be an IP address in canonical form',
    ]);
    expect(refusals[1]!.problems).toEqual([
      'ips[0]: must be an IP address in canonical form',
      'ingress.allow[0].peers.group: names a peer group the state does not hold',
      'ingress.allow[0].peers.cidrs[0]: must be a CIDR in canonical form',
      'ingress.allow[1].ports[0]: endPort must not be below port',
      'egress.allow[0].endpoints: names a peer group the state does not hold',
    ]);
  });
});
