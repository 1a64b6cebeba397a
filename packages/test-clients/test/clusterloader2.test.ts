// The clusterloader2 drop-in, checked end to end without a cluster. clusterloader2's
// NetworkPolicyEnforcement measurement creates one client Deployment per target namespace from
// manifests compiled into it (perf-tests 4b3415444f,
// clusterloader2/pkg/measurement/common/network-policy/manifests); the pods below are rendered from
// that description, with the image references the publish script
// produces (upstream's two names and tag: clusterloader2 has no image parameter). The test checks:
// - the publish script pushes exactly those references;
// - the image has both binaries where `sh -c ./<binary>` finds them (WORKDIR /), a shell, and the port;
// - the command, split by a real `sh -c`, passes each binary's flag parser and validation, in
//   upstream mode with upstream's defaults;
// - with nothing more than clusterloader2's RBAC (pods get/list/watch, networkpolicies get), the
//   policy client measures against the lab's fake API server (list/watch of policies refused).
import { chmod, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processExecer, processExecerWith, runChecked } from '@kpng/kit';
import { FakeApiServer, kubeconfigFor } from '@kpng/lab';
import { describe, expect, it } from 'vitest';
import { main as policyMain } from '../src/clients/policy-creation/main.js';
import {
  podCreationConfig,
  podCreationFlags,
  policyCreationConfig,
  policyCreationFlags,
} from '../src/config/clients.js';
import type { Dialer } from '../src/probe/dialer.js';
import { pod, policy } from './support/objects.js';
import { sample, startClient } from './support/harness.js';

const PACKAGE = fileURLToPath(new URL('../', import.meta.url));
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const UPSTREAM_REGISTRY = 'gcr.io/k8s-staging-perf-tests/network-policy-enforcement-latency';
const IMAGE = (binary: string) => `${UPSTREAM_REGISTRY}/${binary}:v0.0.1`;

type TestType = 'pod-creation' | 'policy-creation';
const BINARY: Readonly<Record<TestType, string>> = {
  'pod-creation': 'pod-creation-reachability-latency',
  'policy-creation': 'policy-creation-enforcement-latency',
};

/** The measurement's `run` step, for target namespace `i` (module defaults: maxTargets 100, metricsPort 9160, targetPort 80). */
function clientDeployment(testType: TestType, i: number) {
  const binary = BINARY[testType];
  const flags = [
    `-HostNamespace="net-policy-test"`,
    `-TargetLabelSelector="net-pol-test = enforcement-latency"`,
    `-TargetNamespace="test-ns-${i}"`,
    '-TargetPort=80',
    '-MaxTargets=100',
    '-MetricsPort=9160',
    ...(testType === 'policy-creation' ? [`-AllowPolicyName=allow-egress-to-target-${i}`] : []),
  ];
  return {
    kind: 'Deployment',
    metadata: {
      name: `${testType}-np-test-client-${i}`,
      namespace: 'net-policy-test',
      labels: { test: 'np-test-client', type: testType },
    },
    spec: {
      template: {
        spec: {
          serviceAccountName: 'np-test-client',
          containers: [
            {
              name: 'net-policy-latency-client',
              image: IMAGE(binary),
              imagePullPolicy: 'Always',
              // The YAML folds the lines of one scalar: sh gets a single string.
              command: ['sh', '-c', `./${binary} ${flags.join(' ')}`],
              ports: [{ containerPort: 9160, name: 'npdelaymetrics', protocol: 'TCP' }],
            },
          ],
        },
      },
    },
  };
}

/** clusterloader2's ClusterRole for the clients. */
const CLUSTER_ROLE = [
  { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: ['get'] },
];

/** The argv `sh -c <command>` hands to the binary, from a real sh and a stand-in binary that prints it. */
async function argvFromShell(command: string, binary: string): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'kpng-cl2-'));
  try {
    const printer = join(dir, 'print-argv');
    await writeFile(printer, '#!/bin/sh\nfor a in "$@"; do printf "%s\\0" "$a"; done\n');
    await chmod(printer, 0o755);
    await symlink(printer, join(dir, binary));
    const { stdout } = await runChecked(processExecerWith({ cwd: dir }), ['sh', '-c', command]);
    return stdout.split('\0').slice(0, -1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('clusterloader2 NetworkPolicyEnforcement with the kpng image', () => {
  it("the publish script pushes the one image under upstream's two names and tag", async () => {
    const { stdout } = await runChecked(processExecer, [
      'bash',
      join(PACKAGE, 'scripts/publish-clusterloader2-images.sh'),
      '--dry-run',
      'kpng/test-clients:0.1.0',
    ]);
    const pushed = stdout
      .split('\n')
      .filter((l) => l.startsWith('docker push '))
      .map((l) => l.slice('docker push '.length).trim());
    expect(pushed).toEqual(Object.values(BINARY).map(IMAGE));
    for (const testType of ['pod-creation', 'policy-creation'] as const)
      expect(pushed).toContain(clientDeployment(testType, 0).spec.template.spec.containers[0]!.image);
  });

  it('the image has both binaries in /, the working directory, with a shell to run them', async () => {
    // The image is the catalog-generated one that CI builds and runs (tools/release images.e2e
    // starts every `/`-linked program with `sh -c ./<program>` inside the built image).
    const dockerfile = await readFile(join(REPO, 'deploy/images/test-clients/Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(runtime).toMatch(/^FROM node:[\d.]+-bookworm-slim$/m); // Debian: /bin/sh is there
    expect(runtime).toMatch(/^WORKDIR \/$/m);
    const pkg = JSON.parse(await readFile(join(PACKAGE, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    for (const binary of Object.values(BINARY)) {
      expect(Object.keys(pkg.bin)).toContain(binary);
      const target = `/opt/kpng/node_modules/@kpng/test-clients/${pkg.bin[binary]!.replace(/^\.\//, '')}`;
      expect(runtime).toContain(`RUN ln -s ${target} /${binary}\n`);
    }
    expect(runtime).toMatch(/^USER 1000:1000$/m); // numeric: runAsNonRoot can be verified
  });

  it.each(['pod-creation', 'policy-creation'] as const)(
    '%s: the binary accepts every flag clusterloader2 passes, and runs in upstream mode',
    async (testType) => {
      const deployment = clientDeployment(testType, 3);
      const container = deployment.spec.template.spec.containers[0]!;
      const binary = BINARY[testType];
      const argv = await argvFromShell(container.command[2]!, binary);
      expect(argv[0]).toBe('-HostNamespace=net-policy-test'); // sh removed the quotes
      expect(argv).toContain('-TargetLabelSelector=net-pol-test = enforcement-latency');
      const config =
        testType === 'pod-creation'
          ? podCreationConfig(podCreationFlags().parse(argv))
          : policyCreationConfig(policyCreationFlags().parse(argv));
      expect(config.targets).toEqual({
        hostNamespace: 'net-policy-test',
        targetLabelSelector: 'net-pol-test = enforcement-latency',
        targetNamespace: 'test-ns-3',
        targetPort: 80,
        maxTargets: 100,
      });
      expect(config.probe).toMatchObject({
        mode: 'upstream',
        cadence: 'sequential',
        attemptTimeoutMs: 1_000,
        targetTimeoutMs: 0,
      });
      // 100 targets under the default -MaxProbeRate of 1000 attempts per second.
      expect(config.probe.intervalMs).toBe(100);
      // The metrics port is the container port the PodMonitor scrapes by name.
      expect(config.serve.metricsPort).toBe(container.ports[0]!.containerPort);
      expect(container.ports[0]!.name).toBe('npdelaymetrics');
      if (testType === 'policy-creation')
        expect(config).toMatchObject({ allowPolicyName: 'allow-egress-to-target-3', measurePolicyDeletion: false });
    },
  );

  it("with clusterloader2's RBAC only (networkpolicies: get), the policy client measures from the GET's creationTimestamp", async () => {
    const server = await FakeApiServer.start();
    const kubeconfig = await kubeconfigFor(server);
    // What the ClusterRole does not grant is refused, as the API server would.
    expect(CLUSTER_ROLE[1]!.verbs).toEqual(['get']);
    const policies = '/apis/networking.k8s.io/v1/namespaces/net-policy-test/networkpolicies';
    server.failNext(policies, 403, { times: 1_000, verb: 'list' });
    server.failNext(policies, 403, { times: 1_000, verb: 'watch' });
    for (const name of ['t-1', 't-2'])
      server.create(
        pod(name, {
          ip: name === 't-1' ? '198.18.1.10' : '198.18.1.11',
          created: Date.now(),
          namespace: 'test-ns-3',
          labels: { 'net-pol-test': 'enforcement-latency' },
        }),
      );
    server.create(policy('allow-egress-to-target-3', { created: Date.now() - 2_000, namespace: 'net-policy-test' }));
    // Targets answer HTTP at once (the enforcer already lets traffic through).
    const dialer: Dialer = {
      dial: async (request) =>
        request.send?.startsWith('GET / HTTP/1.1')
          ? { ok: true, reply: 'HTTP/1.1 200 OK' }
          : { ok: false, error: 'reset' },
    };
    const argv = (
      await argvFromShell(
        clientDeployment('policy-creation', 3).spec.template.spec.containers[0]!.command[2]!,
        BINARY['policy-creation'],
      )
    ).filter((a) => !a.startsWith('-MetricsPort'));
    const client = await startClient(policyMain, [...argv, `-Kubeconfig=${kubeconfig.path}`], dialer);
    try {
      await client.log.waitFor('measurement complete');
      const text = await client.metrics();
      expect(sample(text, 'policy_enforcement_latency_policy_creation_seconds_count')).toBe(2);
      expect(
        sample(
          text,
          'kpng_test_client_info{program="policy-creation-enforcement-latency",version="0.1.0",mode="upstream"}',
        ),
      ).toBe(1);
      const reached = client.log.find('target pod reached after policy creation');
      expect(reached.map((r) => r['startSource'])).toEqual(['creationTimestamp', 'creationTimestamp']);
      // Every request the client made is one the ClusterRole allows, or was refused for lack of it.
      for (const r of server.requests()) {
        const rule = CLUSTER_ROLE.find((c) => r.resource !== undefined && c.resources.includes(r.resource));
        expect(rule, `${r.verb} ${r.path}`).toBeDefined();
        if (!rule!.verbs.includes(r.verb)) expect(r.status, `${r.verb} ${r.path}`).toBe(403);
      }
    } finally {
      expect(await client.stop()).toBe(0);
      await kubeconfig.remove();
      await server.close();
    }
  });
});
