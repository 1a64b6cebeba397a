import { describe, expect, test } from 'vitest';
import { allowsConnection, type Connection } from './allows.js';
import { PolicyView } from './policy-view.js';
import { cluster, ipOf, NODE, namespace, pod, policy } from '../../test/support/policy-world.js';
import { podKey, policyKey, type PolicyType } from './types.js';

type Probe = readonly [peer: number, protocol: Connection['protocol'], port: number, allowed: boolean];

function viewWith(specs: readonly object[]): PolicyView {
  const view = new PolicyView(NODE);
  const { namespaces, pods } = cluster();
  namespaces.forEach((ns) => view.setNamespace(ns));
  pods.forEach((p) => view.setPod(p));
  specs.forEach((spec, i) => view.setPolicy(policy('default', `p${i}`, spec)));
  return view;
}

function verdicts(
  view: PolicyView,
  target: string,
  direction: PolicyType,
  probes: readonly Probe[],
  family: 'IPv4' | 'IPv6',
) {
  const all = view.state().state;
  const state = all.pods.get(podKey('default', target));
  if (state === undefined) throw new Error(`no local pod ${target}`);
  const policyOf = direction === 'Ingress' ? state.ingress : state.egress;
  return probes.map(([peer, protocol, port]) =>
    allowsConnection(policyOf, { peer: ipOf(peer, family), protocol, port }, all.groups),
  );
}

const client = { matchLabels: { app: 'client' } };
const server = { matchLabels: { app: 'server' } };
const teamB = { matchLabels: { team: 'b' } };

/**
 * Behaviours of the NetworkPolicy docs and upstream's netpol e2e suite. Peers: 11 default/client
 * (local), 12 default/stranger, 13 other/client, 14 other/web (http = 8080), 15 third/client.
 */
const CASES: readonly (readonly [string, readonly object[], PolicyType, readonly Probe[]])[] = [
  [
    'no policy: everything is allowed',
    [],
    'Ingress',
    [
      [11, 'TCP', 80, true],
      [13, 'UDP', 9, true],
      [15, 'ICMP', 0, true],
    ],
  ],
  [
    'deny all ingress',
    [{ podSelector: {} }],
    'Ingress',
    [
      [11, 'TCP', 80, false],
      [13, 'ICMP', 0, false],
    ],
  ],
  ['deny all ingress leaves egress open', [{ podSelector: {} }], 'Egress', [[11, 'TCP', 80, true]]],
  [
    'allow all ingress',
    [{ podSelector: {}, ingress: [{}] }],
    'Ingress',
    [
      [15, 'UDP', 1, true],
      [12, 'ICMP', 0, true],
    ],
  ],
  ['a policy not selecting the pod does not isolate it', [{ podSelector: client }], 'Ingress', [[12, 'TCP', 80, true]]],
  [
    'from a pod selector: same namespace only',
    [{ podSelector: server, ingress: [{ from: [{ podSelector: client }] }] }],
    'Ingress',
    [
      [11, 'TCP', 80, true],
      [12, 'TCP', 80, false],
      [13, 'TCP', 80, false],
    ],
  ],
  [
    'from a namespace selector: every pod there',
    [{ podSelector: server, ingress: [{ from: [{ namespaceSelector: teamB }] }] }],
    'Ingress',
    [
      [13, 'TCP', 80, true],
      [14, 'TCP', 80, true],
      [11, 'TCP', 80, false],
      [15, 'TCP', 80, false],
    ],
  ],
  [
    'namespace and pod selector in one peer: both must hold',
    [{ podSelector: server, ingress: [{ from: [{ namespaceSelector: teamB, podSelector: client }] }] }],
    'Ingress',
    [
      [13, 'TCP', 80, true],
      [14, 'TCP', 80, false],
      [11, 'TCP', 80, false],
      [15, 'TCP', 80, false],
    ],
  ],
  [
    'namespace and pod selector as two peers: either holds',
    [{ podSelector: server, ingress: [{ from: [{ namespaceSelector: teamB }, { podSelector: client }] }] }],
    'Ingress',
    [
      [13, 'TCP', 80, true],
      [14, 'TCP', 80, true],
      [11, 'TCP', 80, true],
      [15, 'TCP', 80, false],
    ],
  ],
  [
    'an empty namespace selector selects every namespace',
    [{ podSelector: server, ingress: [{ from: [{ namespaceSelector: {}, podSelector: client }] }] }],
    'Ingress',
    [
      [11, 'TCP', 80, true],
      [13, 'TCP', 80, true],
      [15, 'TCP', 80, true],
      [14, 'TCP', 80, false],
    ],
  ],
  [
    'matchExpressions on the namespace',
    [
      {
        podSelector: server,
        ingress: [
          { from: [{ namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'NotIn', values: ['a'] }] } }] },
        ],
      },
    ],
    'Ingress',
    [
      [13, 'TCP', 80, true],
      [15, 'TCP', 80, true],
      [11, 'TCP', 80, false],
    ],
  ],
  [
    'ipBlock with except',
    [
      {
        podSelector: server,
        ingress: [{ from: [{ ipBlock: { cidr: '198.18.1.0/24', except: ['198.18.1.13/32'] } }] }],
      },
    ],
    'Ingress',
    [
      [11, 'TCP', 80, true],
      [14, 'TCP', 80, true],
      [13, 'TCP', 80, false],
    ],
  ],
  [
    'numeric port: that port and protocol only',
    [{ podSelector: server, ingress: [{ ports: [{ port: 80 }] }] }],
    'Ingress',
    [
      [11, 'TCP', 80, true],
      [11, 'TCP', 81, false],
      [11, 'UDP', 80, false],
      [11, 'ICMP', 0, false],
    ],
  ],
  [
    'named ports resolve on the target pod',
    [
      {
        podSelector: server,
        ingress: [{ ports: [{ port: 'http' }, { port: 'dns', protocol: 'UDP' }, { port: 'nope' }] }],
      },
    ],
    'Ingress',
    [
      [11, 'TCP', 80, true],
      [11, 'UDP', 53, true],
      [11, 'TCP', 53, false],
      [11, 'TCP', 8080, false],
    ],
  ],
  [
    'a named port the pod lacks allows nothing',
    [{ podSelector: server, ingress: [{ ports: [{ port: 'nope' }] }] }],
    'Ingress',
    [[11, 'TCP', 80, false]],
  ],
  [
    'endPort: an inclusive range',
    [{ podSelector: server, ingress: [{ ports: [{ port: 8000, endPort: 8010 }] }] }],
    'Ingress',
    [
      [11, 'TCP', 7999, false],
      [11, 'TCP', 8000, true],
      [11, 'TCP', 8010, true],
      [11, 'TCP', 8011, false],
    ],
  ],
  [
    'a protocol without a port: every port of it',
    [{ podSelector: server, ingress: [{ ports: [{ protocol: 'UDP' }] }] }],
    'Ingress',
    [
      [11, 'UDP', 1, true],
      [11, 'UDP', 65535, true],
      [11, 'TCP', 80, false],
    ],
  ],
  [
    'peers and ports of one rule hold together; rules add up',
    [
      {
        podSelector: server,
        ingress: [
          { from: [{ podSelector: client }], ports: [{ port: 80 }] },
          { from: [{ namespaceSelector: teamB }], ports: [{ port: 81 }] },
        ],
      },
    ],
    'Ingress',
    [
      [11, 'TCP', 80, true],
      [11, 'TCP', 81, false],
      [13, 'TCP', 81, true],
      [13, 'TCP', 80, false],
    ],
  ],
  [
    'policies add up: deny all plus allow from clients',
    [{ podSelector: {} }, { podSelector: server, ingress: [{ from: [{ podSelector: client }] }] }],
    'Ingress',
    [
      [11, 'TCP', 80, true],
      [12, 'TCP', 80, false],
    ],
  ],
  [
    'egress deny',
    [{ podSelector: server, policyTypes: ['Egress'] }],
    'Egress',
    [
      [11, 'TCP', 80, false],
      [14, 'UDP', 53, false],
    ],
  ],
  [
    'egress deny leaves ingress open',
    [{ podSelector: server, policyTypes: ['Egress'] }],
    'Ingress',
    [[11, 'TCP', 80, true]],
  ],
  [
    'policyTypes defaults to Egress too when egress rules exist',
    [{ podSelector: server, egress: [{ to: [{ podSelector: client }] }] }],
    'Egress',
    [
      [11, 'TCP', 80, true],
      [12, 'TCP', 80, false],
    ],
  ],
  [
    'policyTypes [Ingress] ignores egress rules',
    [{ podSelector: server, policyTypes: ['Ingress'], egress: [{ to: [{ podSelector: client }] }] }],
    'Egress',
    [[12, 'TCP', 80, true]],
  ],
  [
    'egress named ports resolve on each destination pod',
    [
      {
        podSelector: server,
        policyTypes: ['Egress'],
        egress: [{ to: [{ namespaceSelector: teamB }], ports: [{ port: 'http' }] }],
      },
    ],
    'Egress',
    [
      [14, 'TCP', 8080, true],
      [14, 'TCP', 80, false],
      [13, 'TCP', 8080, false],
    ],
  ],
  [
    'egress named port to every peer',
    [{ podSelector: server, policyTypes: ['Egress'], egress: [{ ports: [{ port: 'http' }] }] }],
    'Egress',
    [
      [14, 'TCP', 8080, true],
      [11, 'TCP', 8080, false],
    ],
  ],
  [
    'egress to an ipBlock with ports',
    [
      {
        podSelector: server,
        egress: [{ to: [{ ipBlock: { cidr: '198.18.1.0/28' } }], ports: [{ port: 53, protocol: 'UDP' }] }],
      },
    ],
    'Egress',
    [
      [11, 'UDP', 53, true],
      [11, 'TCP', 53, false],
      [20, 'UDP', 53, false],
    ],
  ],
];

describe.each(['IPv4', 'IPv6'] as const)('policy view (%s)', (family) => {
  test.each(CASES)('%s', (_name, specs, direction, probes) => {
    // ipBlocks are IPv4 here: IPv6 peers fall outside them.
    const ipv4Only = specs.some((spec) => JSON.stringify(spec).includes('ipBlock'));
    const expected = probes.map(([peer, , , allowed]) =>
      family === 'IPv6' && ipv4Only && peer !== 0 ? false : allowed,
    );
    expect(verdicts(viewWith(specs), 'server', direction, probes, family)).toEqual(expected);
  });
});

describe('policy view: who is a target', () => {
  test('only non-hostNetwork pods of this node with an IP', () => {
    const view = viewWith([]);
    view.setPod(pod('default', 'host', 30, { app: 'client' }, { hostNetwork: true }));
    expect([...view.state().state.pods.keys()].sort()).toEqual(['default/client', 'default/server']);
  });

  test('a hostNetwork pod is no peer of a pod selector', () => {
    const view = viewWith([{ podSelector: server, ingress: [{ from: [{ podSelector: client }] }] }]);
    view.setPod(pod('default', 'host', 30, { app: 'client' }, { hostNetwork: true }));
    expect(verdicts(view, 'server', 'Ingress', [[30, 'TCP', 80, false]], 'IPv4')).toEqual([false]);
  });

  // Upstream leaves hostNetwork pods' policy behaviour to the implementation; this is the common one:
  // selectors ignore them, and their traffic is the node's (its address), which only an ipBlock matches.
  test('a hostNetwork pod is no peer of a namespace selector either; an ipBlock with its (the node) address is', () => {
    const host = pod('other', 'host', 30, { app: 'client' }, { hostNetwork: true, node: 'node-2' });
    const everyNamespace = viewWith([{ podSelector: server, ingress: [{ from: [{ namespaceSelector: {} }] }] }]);
    everyNamespace.setPod(host);
    expect(verdicts(everyNamespace, 'server', 'Ingress', [[30, 'TCP', 80, false]], 'IPv4')).toEqual([false]);
    const nodeBlock = viewWith([
      { podSelector: server, ingress: [{ from: [{ ipBlock: { cidr: '198.18.1.30/32' } }] }] },
    ]);
    nodeBlock.setPod(host);
    expect(verdicts(nodeBlock, 'server', 'Ingress', [[30, 'TCP', 80, true]], 'IPv4')).toEqual([true]);
  });
});

describe('policy view: incremental updates', () => {
  const allowClients = { podSelector: server, ingress: [{ from: [{ podSelector: client }] }] };

  test('a pod label change in and out of a selector', () => {
    const view = viewWith([allowClients]);
    view.state();
    const server = view.state().state.pods.get(podKey('default', 'server'));
    view.setPod(pod('default', 'client', 11, { app: 'other' }));
    // The peer's group changes; the server's policy, which names the group, does not.
    const update = view.state();
    expect(update.changed).toEqual(['default/client']);
    expect(update.changedGroups).toEqual(['default/p0/Ingress/0']);
    expect(update.state.pods.get(podKey('default', 'server'))).toBe(server);
    expect(verdicts(view, 'server', 'Ingress', [[11, 'TCP', 80, false]], 'IPv4')).toEqual([false]);
    view.setPod(pod('default', 'client', 11, { app: 'client' }));
    expect(verdicts(view, 'server', 'Ingress', [[11, 'TCP', 80, true]], 'IPv4')).toEqual([true]);
  });

  test('a new pod in a selected namespace', () => {
    const view = viewWith([{ podSelector: server, ingress: [{ from: [{ namespaceSelector: teamB }] }] }]);
    expect(verdicts(view, 'server', 'Ingress', [[40, 'TCP', 80, false]], 'IPv4')).toEqual([false]);
    view.setPod(pod('other', 'new', 40, {}, { node: 'node-2' }));
    expect(view.state()).toMatchObject({ changed: [], changedGroups: ['default/p0/Ingress/0'] });
    expect(verdicts(view, 'server', 'Ingress', [[40, 'TCP', 80, true]], 'IPv6')).toEqual([true]);
  });

  test('a namespace label change', () => {
    const view = viewWith([{ podSelector: server, ingress: [{ from: [{ namespaceSelector: teamB }] }] }]);
    view.state();
    view.setNamespace(namespace('third', { team: 'b' }));
    expect(verdicts(view, 'server', 'Ingress', [[15, 'TCP', 80, true]], 'IPv4')).toEqual([true]);
    view.deleteNamespace('other');
    expect(verdicts(view, 'server', 'Ingress', [[13, 'TCP', 80, false]], 'IPv4')).toEqual([false]);
  });

  test('a policy update and deletion', () => {
    const view = viewWith([allowClients]);
    view.setPolicy(
      policy('default', 'p0', { podSelector: server, ingress: [{ from: [{ namespaceSelector: teamB }] }] }),
    );
    expect(
      verdicts(
        view,
        'server',
        'Ingress',
        [
          [11, 'TCP', 80, false],
          [13, 'TCP', 80, true],
        ],
        'IPv4',
      ),
    ).toEqual([false, true]);
    view.deletePolicy(policyKey('default', 'p0'));
    expect(view.state().state.pods.get(podKey('default', 'server'))?.ingress).toEqual({ isolated: false, allow: [] });
  });

  test('a change recomputes only the pods it can affect', () => {
    const view = viewWith([allowClients]);
    view.state();
    view.setPolicy(policy('other', 'elsewhere', { podSelector: {} }));
    view.setPod(pod('third', 'unrelated', 41, { app: 'x' }, { node: 'node-2' }));
    expect(view.state()).toMatchObject({ changed: [], changedGroups: [] });
    view.deletePod(podKey('default', 'stranger'));
    expect(view.state()).toMatchObject({ changed: [], changedGroups: [] });
  });

  test('the state is a snapshot: later changes do not alter a state already handed out', () => {
    const view = viewWith([allowClients]);
    const before = view.state().state;
    view.deletePod(podKey('default', 'server'));
    expect(before.pods.has(podKey('default', 'server'))).toBe(true);
    expect(view.state().state.pods.has(podKey('default', 'server'))).toBe(false);
  });
});
