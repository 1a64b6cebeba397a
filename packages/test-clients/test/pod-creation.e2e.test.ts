// Kernel e2e: the pod-creation client's real main, probing from a lab "client pod" namespace, with
// target "pods" (lab pod namespaces) registered in the fake API server. Each target's echo server
// starts a known delay after the client saw the pod's IP: the client must report at least that
// delay. How much more it reports is printed, not bounded (the probes' scheduling on a shared
// machine); what it measures from is pinned with a fake clock in src/clients/pod-creation/*.test.ts.
import { FakeApiServer, kernelE2e, kubeconfigFor, Lab, sweepLeftovers, type LabKubeconfig } from '@kpng/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/clients/pod-creation/main.js';
import { pod } from './support/objects.js';
import { bucketBounds } from './support/metrics.js';
import { NetnsDialer } from './support/netns-dialer.js';
import { sample, sleep, startClient, type RunningClient } from './support/harness.js';

const e2e = await kernelE2e('test-clients: pod-creation reachability');

const PORT = 8080;
/** Injected delay before each target answers, after the client saw its IP. */
const DELAYS_MS: Readonly<Record<string, number>> = { 'target-a': 300, 'target-b': 700, 'target-c': 1_100 };

describe.skipIf(!e2e.run)('pod-creation-reachability-latency in the lab', () => {
  let lab: Lab;
  let server: FakeApiServer;
  let kubeconfig: LabKubeconfig;
  let dialer: NetnsDialer;

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await Lab.create({ pods: ['client', ...Object.keys(DELAYS_MS)] });
    server = await FakeApiServer.start();
    kubeconfig = await kubeconfigFor(server);
    dialer = await NetnsDialer.start(lab.pod('client').namespace);
  });
  afterAll(async () => {
    await dialer?.close();
    await kubeconfig?.remove();
    await server?.close();
    await lab?.delete();
  });

  const flags = (family: 'IPv4' | 'IPv6') => [
    '-HostNamespace=default',
    '-TargetLabelSelector=target=test-policy',
    '-TargetNamespace=test-policy',
    `-TargetPort=${PORT}`,
    `-MaxTargets=${Object.keys(DELAYS_MS).length}`,
    `-Kubeconfig=${kubeconfig.path}`,
    '-Mode=precise', // the lab echo server answers its name, not HTTP: upstream's curl criterion would never pass
    '-ProbeInterval=20ms',
    '-ProbeTimeout=500ms',
    '-TargetTimeout=30s',
    `-IPFamily=${family}`,
  ];

  it('reports each pod reachable no sooner than its injected delay, IPv4 and IPv6', async () => {
    const clients: Record<'IPv4' | 'IPv6', RunningClient> = {
      IPv4: await startClient(main, flags('IPv4'), dialer),
      IPv6: await startClient(main, flags('IPv6'), dialer),
    };
    /** When each echo server was listening (test clock, epoch ms). */
    const readyAt: Record<string, number> = {};
    try {
      for (const c of Object.values(clients)) await c.log.waitFor('initial list synced');
      // Pods are created without an IP, then get one, as the scheduler and CNI would do.
      await Promise.all(
        Object.entries(DELAYS_MS).map(async ([name, delayMs]) => {
          const target = lab.pod(name);
          server.create(pod(name, { created: Date.now() }));
          await sleep(50);
          server.update(pod(name, { created: Date.now(), ips: [target.ipv4, target.ipv6] }));
          // The delay starts once BOTH clients have seen the IP: each must then report at least it.
          await Promise.all(
            Object.values(clients).map((c) => c.log.waitFor('target pod has an IP address', { pod: name })),
          );
          await sleep(delayMs);
          await lab.startEcho(name, [PORT]);
          readyAt[name] = Date.now();
        }),
      );
      for (const [family, client] of Object.entries(clients)) {
        await client.log.waitFor('measurement complete', {}, 20_000);
        for (const [name, delayMs] of Object.entries(DELAYS_MS)) {
          const reached = client.log.find('target pod reached', { pod: name })[0];
          expect(reached, `${family} ${name}`).toMatchObject({
            ipFamily: family,
            ip: lab.pod(name)[family === 'IPv4' ? 'ipv4' : 'ipv6'],
          });
          const latency = reached!['latencySeconds'] as number;
          expect(latency, `${family} ${name}`).toBeGreaterThanOrEqual(delayMs / 1_000);
        }
        const text = await client.metrics();
        expect(sample(text, 'pod_creation_reachability_latency_seconds_count{mode="precise",start="watch"}')).toBe(3);
        expect(
          sample(text, 'pod_ip_address_assigned_latency_seconds_count{mode="precise",start="creationTimestamp"}'),
        ).toBe(3);
        expect(bucketBounds(text, 'pod_creation_reachability_latency_seconds')).toEqual([
          0.1, 0.5, 1, 3, 5, 10, 30, 60, 300, 600, 1800, 3600,
        ]);
        // Every delay is over 0.1 s, so no sample can land at or below it.
        expect(
          sample(text, 'pod_creation_reachability_latency_seconds_bucket{le="0.1",mode="precise",start="watch"}'),
        ).toBe(0);
        expect(
          sample(
            text,
            'kpng_test_client_targets_unreached_total{measurement="pod_creation_reachability",reason="deadline"}',
          ),
        ).toBe(0);
        expect(sample(text, 'kpng_test_client_complete{measurement="pod_creation_reachability"}')).toBe(1);
        console.info(
          `[pod-creation ${family}] injected vs measured (s): ` +
            Object.entries(DELAYS_MS)
              .map(([name, d]) => {
                const ipSeenAt = Date.parse(client.log.find('target pod has an IP address', { pod: name })[0]!.time);
                return `${name} ${d / 1_000} (server ready at ${(readyAt[name]! - ipSeenAt) / 1_000}) -> ${client.log.find('target pod reached', { pod: name })[0]!['latencySeconds']}`;
              })
              .join(', '),
        );
      }
    } finally {
      for (const c of Object.values(clients)) expect(await c.stop()).toBe(0);
    }
  });
});
