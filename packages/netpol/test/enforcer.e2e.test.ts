// The NetworkPolicy behaviours with real packets: the policy view (from raw Pods, Namespaces and
// NetworkPolicies) rendered by the enforcer into the lab node's namespace, then probed from pods on
// the node, pods on the remote node and the external client, IPv4 and IPv6.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convertNamespace, convertNetworkPolicy, convertPod, PolicyView, runProgram } from '@kpng/core/runtime';
import { FakeApiServer, kernelE2e, kubeconfigFor, Lab, sweepLeftovers, type HeldConnection } from '@kpng/lab';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { NetpolEnforcer } from '../src/backend/enforcer.js';
import { main } from '../src/cli/main.js';

const e2e = await kernelE2e('netpol enforcer');

const NODE = 'node';
type Family = 'ipv4' | 'ipv6';
/** Lab pods and who they are in the cluster. */
const PODS = {
  server: { namespace: 'default', labels: { app: 'server' }, local: true },
  client: { namespace: 'default', labels: { app: 'client' }, local: true },
  far: { namespace: 'other', labels: { app: 'client' }, local: false },
  web: { namespace: 'other', labels: { app: 'web' }, local: false },
  late: { namespace: 'other', labels: { app: 'client' }, local: false },
} as const;
type PodName = keyof typeof PODS;
type From = PodName | 'ext';
const SERVICE = { ipv4: '198.19.0.10', ipv6: '2001:db8:5e::10' } as const;
/** Probes expected to fail wait this long for an answer (a drop has none); allowed ones answer in ms, but a busy CI machine (load 17 seen here) may take hundreds: the lab default, 1 s. */
const DENIED_AFTER_MS = 1_000;

function unwrap<T>(result: { ok: true; value: T } | { ok: false; errors: readonly string[] }): T {
  if (!result.ok) throw new Error(result.errors.join('; '));
  return result.value;
}

describe.skipIf(!e2e.run)('netpol enforcer in the lab', () => {
  let lab: Lab;
  let enforcer: NetpolEnforcer;
  let view: PolicyView;
  let policies: string[] = [];

  const podObject = (name: PodName, labels: Record<string, string> = PODS[name].labels) => {
    const pod = lab.pod(name);
    return unwrap(
      convertPod({
        metadata: { namespace: PODS[name].namespace, name, labels },
        spec: {
          nodeName: PODS[name].local ? NODE : 'remote',
          containers: [{ name: 'echo', ports: [{ name: 'http', containerPort: 8080 }] }],
        },
        status: { phase: 'Running', podIPs: [{ ip: pod.ipv4 }, { ip: pod.ipv6 }] },
      }),
    );
  };
  const sync = () => enforcer.sync(view.state().state);
  const setPolicies = async (specs: readonly object[]) => {
    policies.forEach((key) => view.deletePolicy(key as never));
    policies = specs.map((spec, i) => {
      const policy = unwrap(convertNetworkPolicy({ metadata: { namespace: 'default', name: `np${i}` }, spec }));
      view.setPolicy(policy);
      return `default/np${i}`;
    });
    await sync();
  };
  const addressOf = (to: PodName | 'svc', family: Family) => (to === 'svc' ? SERVICE[family] : lab.pod(to)[family]);
  const reach = async (from: From, to: PodName | 'svc', port: number, family: Family, proto: 'tcp' | 'udp' = 'tcp') => {
    const source = from === 'ext' ? lab.external.namespace : lab.pod(from).namespace;
    const result = await lab.probe(source, { proto, ip: addressOf(to, family), port, timeoutMs: DENIED_AFTER_MS });
    return result.ok;
  };

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await Lab.create({ pods: ['server', 'client'], remotePods: ['far', 'web', 'late'] });
    await Promise.all([
      lab.startEcho('server', [8080, 8081, 9000, 9001, 9002], { holdPorts: [7000] }),
      ...(['client', 'far', 'web', 'late'] as const).map((name) => lab.startEcho(name, [8080])),
    ]);
    // A Service in front of the server (as a service proxy's DNAT would be): policy judges the pod it reaches.
    const server = lab.pod('server');
    await lab.node.namespace.exec(['nft', '-f', '-'], {
      input: [
        'table inet svc {',
        '  chain pre { type nat hook prerouting priority dstnat; policy accept;',
        `    ip daddr ${SERVICE.ipv4} tcp dport 80 dnat ip to ${server.ipv4}:8080`,
        `    ip6 daddr ${SERVICE.ipv6} tcp dport 80 dnat ip6 to [${server.ipv6}]:8080`,
        '  }',
        '}',
      ].join('\n'),
    });
    enforcer = new NetpolEnforcer({ netns: lab.node.namespace.name });
    view = new PolicyView(NODE);
    view.setNamespace(unwrap(convertNamespace({ metadata: { name: 'default', labels: { team: 'a' } } })));
    view.setNamespace(unwrap(convertNamespace({ metadata: { name: 'other', labels: { team: 'b' } } })));
    (['server', 'client', 'far', 'web'] as const).forEach((name) => view.setPod(podObject(name)));
    await sync();
  });
  afterAll(async () => {
    await enforcer?.close();
    await lab?.delete();
  });

  const server = { matchLabels: { app: 'server' } };
  const client = { matchLabels: { app: 'client' } };
  const teamB = { matchLabels: { team: 'b' } };
  type Probe = readonly [from: From, to: PodName | 'svc', port: number, allowed: boolean, proto?: 'tcp' | 'udp'];
  const CASES: readonly { name: string; policies: readonly object[]; probes: readonly Probe[] }[] = [
    {
      name: 'no policy: everything passes',
      policies: [],
      probes: [
        ['client', 'server', 8080, true],
        ['far', 'server', 8080, true],
        ['ext', 'server', 8080, true],
      ],
    },
    {
      name: 'deny all ingress',
      policies: [{ podSelector: {} }],
      probes: [
        ['client', 'server', 8080, false],
        ['far', 'server', 8080, false],
        ['ext', 'server', 8080, false],
        ['far', 'server', 8080, false, 'udp'],
      ],
    },
    {
      name: 'allow from a pod selector (same namespace only)',
      policies: [{ podSelector: server, ingress: [{ from: [{ podSelector: client }] }] }],
      probes: [
        ['client', 'server', 8080, true],
        ['far', 'server', 8080, false],
        ['web', 'server', 8080, false],
      ],
    },
    {
      name: 'allow from a namespace selector',
      policies: [{ podSelector: server, ingress: [{ from: [{ namespaceSelector: teamB }] }] }],
      probes: [
        ['far', 'server', 8080, true],
        ['web', 'server', 8080, true],
        ['client', 'server', 8080, false],
      ],
    },
    {
      name: 'namespace and pod selector combined',
      policies: [
        {
          podSelector: server,
          ingress: [{ from: [{ namespaceSelector: teamB, podSelector: { matchLabels: { app: 'web' } } }] }],
        },
      ],
      probes: [
        ['web', 'server', 8080, true],
        ['far', 'server', 8080, false],
        ['client', 'server', 8080, false],
      ],
    },
    {
      name: 'ipBlock with except',
      policies: [
        {
          podSelector: server,
          ingress: [
            {
              from: [
                { ipBlock: { cidr: '198.18.0.0/16', except: ['198.18.2.0/24'] } },
                { ipBlock: { cidr: '2001:db8::/46', except: ['2001:db8:2::/64'] } },
              ],
            },
          ],
        },
      ],
      probes: [
        ['client', 'server', 8080, true],
        ['far', 'server', 8080, false],
        ['ext', 'server', 8080, false],
      ],
    },
    {
      name: 'numeric port',
      policies: [{ podSelector: server, ingress: [{ ports: [{ port: 8081 }] }] }],
      probes: [
        ['client', 'server', 8081, true],
        ['client', 'server', 8080, false],
        ['client', 'server', 8081, false, 'udp'],
      ],
    },
    {
      name: 'named port (resolved on the server)',
      policies: [{ podSelector: server, ingress: [{ ports: [{ port: 'http' }] }] }],
      probes: [
        ['client', 'server', 8080, true],
        ['ext', 'server', 8080, true],
        ['client', 'server', 8081, false],
      ],
    },
    {
      name: 'port range (endPort)',
      policies: [{ podSelector: server, ingress: [{ ports: [{ port: 9000, endPort: 9001 }] }] }],
      probes: [
        ['client', 'server', 9000, true],
        ['client', 'server', 9001, true],
        ['client', 'server', 9002, false],
        ['client', 'server', 8080, false],
      ],
    },
    {
      name: 'UDP port',
      policies: [{ podSelector: server, ingress: [{ ports: [{ protocol: 'UDP', port: 8080 }] }] }],
      probes: [
        ['client', 'server', 8080, true, 'udp'],
        ['client', 'server', 8080, false],
      ],
    },
    {
      name: 'through a Service: judged after DNAT, on the pod port',
      policies: [{ podSelector: server, ingress: [{ ports: [{ port: 8080 }] }] }],
      probes: [
        ['client', 'svc', 80, true],
        ['far', 'svc', 80, true],
      ],
    },
    {
      name: 'through a Service: the Service port is not what is allowed',
      policies: [{ podSelector: server, ingress: [{ ports: [{ port: 80 }] }] }],
      probes: [['client', 'svc', 80, false]],
    },
    {
      name: 'egress deny',
      policies: [{ podSelector: server, policyTypes: ['Egress'] }],
      probes: [
        ['server', 'client', 8080, false],
        ['server', 'far', 8080, false],
        ['client', 'server', 8080, true],
      ],
    },
    {
      name: 'egress allow to a namespace selector, named port on the destination',
      policies: [
        {
          podSelector: server,
          policyTypes: ['Egress'],
          egress: [{ to: [{ namespaceSelector: teamB }], ports: [{ port: 'http' }] }],
        },
      ],
      probes: [
        ['server', 'far', 8080, true],
        ['server', 'web', 8080, true],
        ['server', 'client', 8080, false],
      ],
    },
    {
      name: 'egress of one pod and ingress of another, both on this node',
      policies: [
        { podSelector: client, policyTypes: ['Egress'], egress: [{ to: [{ podSelector: server }] }] },
        { podSelector: server, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'nobody' } } }] }] },
      ],
      probes: [
        ['client', 'server', 8080, false],
        ['client', 'far', 8080, false],
        ['far', 'client', 8080, true],
      ],
    },
  ];

  describe.each(['ipv4', 'ipv6'] as const)('%s', (family) => {
    test.each(CASES)('$name', async ({ policies: specs, probes }) => {
      await setPolicies(specs);
      const results = await Promise.all(
        probes.map(([from, to, port, , proto]) => reach(from, to, port, family, proto)),
      );
      expect(results).toEqual(probes.map(([, , , allowed]) => allowed));
    });

    test('policy update and deletion', async () => {
      await setPolicies([{ podSelector: server, ingress: [{ from: [{ podSelector: client }] }] }]);
      expect([await reach('client', 'server', 8080, family), await reach('far', 'server', 8080, family)]).toEqual([
        true,
        false,
      ]);
      await setPolicies([{ podSelector: server, ingress: [{ from: [{ namespaceSelector: teamB }] }] }]);
      expect([await reach('client', 'server', 8080, family), await reach('far', 'server', 8080, family)]).toEqual([
        false,
        true,
      ]);
      await setPolicies([]);
      expect([await reach('client', 'server', 8080, family), await reach('far', 'server', 8080, family)]).toEqual([
        true,
        true,
      ]);
    });

    test('a pod label change in and out of a selector', async () => {
      await setPolicies([{ podSelector: server, ingress: [{ from: [{ podSelector: client }] }] }]);
      view.setPod(podObject('client', { app: 'other' }));
      await sync();
      expect(await reach('client', 'server', 8080, family)).toBe(false);
      view.setPod(podObject('client'));
      await sync();
      expect(await reach('client', 'server', 8080, family)).toBe(true);
    });

    test('a target pod label change out of and into the policy', async () => {
      await setPolicies([{ podSelector: server }]);
      expect(await reach('client', 'server', 8080, family)).toBe(false);
      view.setPod(podObject('server', { app: 'unselected' }));
      await sync();
      expect(await reach('client', 'server', 8080, family)).toBe(true);
      view.setPod(podObject('server'));
      await sync();
      expect(await reach('client', 'server', 8080, family)).toBe(false);
    });

    test('a new pod in a selected namespace', async () => {
      view.deletePod('other/late' as never);
      await setPolicies([{ podSelector: server, ingress: [{ from: [{ namespaceSelector: teamB }] }] }]);
      expect(await reach('late', 'server', 8080, family)).toBe(false);
      view.setPod(podObject('late'));
      await sync();
      expect(await reach('late', 'server', 8080, family)).toBe(true);
    });

    test('an established connection outlives a new deny; a new one is dropped', async () => {
      await setPolicies([]);
      await using held: HeldConnection = await lab.hold(lab.pod('client'), {
        ip: lab.pod('server')[family],
        port: 7000,
      });
      await setPolicies([{ podSelector: server }]);
      await expect(held.exchange('still')).resolves.toBe('server still');
      expect(await reach('client', 'server', 7000, family)).toBe(false);
    });
  });

  test("a peer's label change is element updates of its group: no rule is added or replaced", async () => {
    await setPolicies([
      { podSelector: server, ingress: [{ from: [{ namespaceSelector: teamB, podSelector: client }] }] },
    ]);
    const rules = async () =>
      (await lab.node.namespace.exec(['nft', '-a', 'list', 'table', 'inet', 'kpng-netpol'])).stdout
        .split('\n')
        .filter((line) => line.includes('# handle') && !line.includes('elements'));
    const before = await rules();
    view.setPod(podObject('far', { app: 'other' }));
    const result = await enforcer.sync(view.state().state);
    expect(result).toEqual({ full: false, added: 0, deleted: 2 });
    expect(await rules()).toEqual(before);
    view.setPod(podObject('far'));
    expect(await enforcer.sync(view.state().state)).toEqual({ full: false, added: 2, deleted: 0 });
    expect(await rules()).toEqual(before);
  });

  /** The fake API server's objects: the namespaces, the lab's server, client and far pods, the server's policy. */
  const apiCluster = async () => {
    const api = await FakeApiServer.start();
    const kubeconfig = await kubeconfigFor(api);
    api.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } });
    for (const [name, labels] of [
      ['default', { team: 'a' }],
      ['other', { team: 'b' }],
    ] as const)
      api.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
    for (const name of ['server', 'client', 'far'] as const) {
      const pod = lab.pod(name);
      api.create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { namespace: PODS[name].namespace, name, labels: PODS[name].labels },
        spec: { nodeName: PODS[name].local ? NODE : 'remote', containers: [{ name: 'echo' }] },
        status: { phase: 'Running', podIPs: [{ ip: pod.ipv4 }, { ip: pod.ipv6 }] },
      });
    }
    const policy = (from: readonly object[]) => ({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { namespace: 'default', name: 'server' },
      spec: { podSelector: server, ingress: [{ from }] },
    });
    api.create(policy([{ podSelector: client }]));
    return {
      kubeconfig: kubeconfig.path,
      /** The policy also allows the `other` namespace (team b). */
      widen: () => void api.update(policy([{ podSelector: client }, { namespaceSelector: teamB }])),
      close: async () => (await kubeconfig.remove(), await api.close()),
    };
  };
  /** Probes until `allowed` holds: a program lists, computes and writes in its own time (30 s: a loaded CI machine). */
  const until = async (from: From, allowed: boolean) => {
    const deadline = Date.now() + 30_000;
    while ((await reach(from, 'server', 8080, 'ipv4')) !== allowed) {
      if (Date.now() > deadline) throw new Error(`${from} -> server never became ${allowed ? 'allowed' : 'denied'}`);
    }
  };
  /** The policy's behaviour through a program enforcing it: client only, then the update lets far in. */
  const enforcesThenFollows = async (widen: () => void) => {
    await until('far', false);
    expect(await reach('client', 'server', 8080, 'ipv4')).toBe(true);
    expect(await reach('client', 'server', 8080, 'ipv6')).toBe(true);
    expect(await reach('far', 'server', 8080, 'ipv6')).toBe(false);
    widen();
    await until('far', true);
    expect(await reach('far', 'server', 8080, 'ipv6')).toBe(true);
  };
  const noServers = ['--metrics-bind-address', '', '--healthz-bind-address', ''];
  /** A program starts, lists, enforces twice (each `until` up to 30 s on a loaded machine) and stops:
   * more than the default 30 s test bound allows. */
  const PROGRAM_TEST_MS = 120_000;

  // The in-process enforcer's table goes, and the programs write their own.
  test(
    'kpng-netpol from the fake API server: objects to enforced packets, a policy update, then --cleanup',
    async () => {
      await enforcer.cleanup();
      const cluster = await apiCluster();
      const stop = new AbortController();
      const flags = ['--netns', lab.node.namespace.name, ...noServers];
      try {
        const running = main(['--kubeconfig', cluster.kubeconfig, '--node-name', NODE, ...flags], {}, stop.signal);
        await enforcesThenFollows(cluster.widen);
        stop.abort();
        expect(await running).toBe(0);
        expect(await main(['--cleanup', ...flags], {})).toBe(0);
        const { stdout } = await lab.node.namespace.exec(['nft', 'list', 'tables']);
        expect(stdout).not.toContain('kpng-netpol');
      } finally {
        stop.abort();
        await cluster.close();
      }
    },
    PROGRAM_TEST_MS,
  );

  test(
    'split: kpng --policy-view serves the policy view on its stream, kpng-netpol --connect enforces it',
    async () => {
      const cluster = await apiCluster();
      const dir = await mkdtemp(join(tmpdir(), 'kpng-netpol-split-'));
      const socket = `unix://${join(dir, 'kpng.sock')}`;
      const stop = new AbortController();
      const flags = ['--netns', lab.node.namespace.name, ...noServers];
      try {
        const core = runProgram(
          undefined,
          ['--kubeconfig', cluster.kubeconfig, '--node-name', NODE, '--listen', socket, '--policy-view', ...noServers],
          { program: 'kpng', signal: stop.signal },
        );
        const agent = main(['--connect', socket, '--node-name', NODE, ...flags], {}, stop.signal);
        await enforcesThenFollows(cluster.widen);
        stop.abort();
        expect(await agent).toBe(0);
        expect(await core).toBe(0);
        expect(await main(['--cleanup', ...flags], {})).toBe(0);
      } finally {
        stop.abort();
        await cluster.close();
        await rm(dir, { recursive: true, force: true });
      }
    },
    PROGRAM_TEST_MS,
  );
});
