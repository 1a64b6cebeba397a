// Kernel e2e: the service-programming client's real main against kpng itself: core (runProxy with
// the kube source on the fake API server) driving the nft backend in the lab node's namespace.
// Each EndpointSlice change adds an endpoint; the client probes the ClusterIP (IPv4 and IPv6) and
// the NodePort from a lab "client pod" until the NEW endpoint answers with its name. Its latencies
// are printed beside kpng's own kubeproxy_network_programming_duration_seconds for the same change
// (both from the trigger time), and its watch-based ones beside kpng's
// kpng_network_programming_from_event_seconds (both from a watch event; the difference between the
// two pairs is the API side's share, here the simulated controller lag). How far apart they may be
// is not asserted: what remains is the dialer helper's scheduling on a shared machine (docs/TESTING.md,
// "Printed, not bounded"); the attempts its late verdicts cost (skipped ticks, timeouts) are printed
// with it. What the client measures from is pinned with a fake clock in
// src/clients/service-programming/client.test.ts, and how a late dialer is judged in
// src/probe/probe-loop.test.ts.
import { configureLogging, type NodeName } from '@kpng/core';
import { KubeSource, loadKubeConfig, runProxy, type RunningProxy } from '@kpng/core/runtime';
import { FakeApiServer, kernelE2e, kubeconfigFor, Lab, sweepLeftovers, type LabKubeconfig } from '@kpng/lab';
import { NftBackend } from '@kpng/nft';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/clients/service-programming/main.js';
import { TRIGGER_TIME_ANNOTATION } from '../src/kube/objects.js';
import { eventually } from './support/eventually.js';
import { sampleSum } from './support/metrics.js';
import { NetnsDialer } from './support/netns-dialer.js';
import { sample, sleep, startClient, type RunningClient } from './support/harness.js';

const e2e = await kernelE2e('test-clients: service programming (kpng nft)');

const NODE = 'node-a';
const PORT = 8080;
const NODE_PORT = 30080;
const CLUSTER_IPS = { IPv4: '198.19.0.10', IPv6: '2001:db8:5e::10' } as const;
/** The EndpointSlice controller's lag, simulated: trigger times are stamped this long before the update. */
const CONTROLLER_LAG_MS = 100;
/** kube-proxy's minSyncPeriod (1 s by default), shortened: changes that follow a sync wait for it. */
const MIN_SYNC_MS = 400;

type Family = 'IPv4' | 'IPv6';

const coreLog: string[] = [];

describe.skipIf(!e2e.run)('service-programming-latency against kpng (nft) in the lab', () => {
  let lab: Lab;
  let server: FakeApiServer;
  let kubeconfig: LabKubeconfig;
  let dialer: NetnsDialer;
  let kpng: RunningProxy;
  let client: RunningClient;

  const endpoint = (name: string, family: Family) => {
    const pod = lab.pod(name);
    return {
      addresses: [family === 'IPv4' ? pod.ipv4 : pod.ipv6],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: pod.host === 'node' ? NODE : 'node-b',
      targetRef: { kind: 'Pod', namespace: 'default', name },
    };
  };
  const slices = (names: readonly string[], triggerTime?: number) =>
    (['IPv4', 'IPv6'] as const).map((family) => ({
      kind: 'EndpointSlice',
      apiVersion: 'discovery.k8s.io/v1',
      metadata: {
        name: `web-${family.toLowerCase()}`,
        namespace: 'default',
        labels: { 'kubernetes.io/service-name': 'web' },
        ...(triggerTime !== undefined
          ? { annotations: { [TRIGGER_TIME_ANNOTATION]: new Date(triggerTime).toISOString() } }
          : {}),
      },
      addressType: family,
      ports: [{ name: 'http', protocol: 'TCP', port: PORT }],
      endpoints: names.map((n) => endpoint(n, family)),
    }));
  const npl = async () => ({
    sum: await sampleSum(kpng.registry, 'kubeproxy_network_programming_duration_seconds_sum'),
    count: await sampleSum(kpng.registry, 'kubeproxy_network_programming_duration_seconds_count'),
    fromEventSum: await sampleSum(kpng.registry, 'kpng_network_programming_from_event_seconds_sum'),
    fromEventCount: await sampleSum(kpng.registry, 'kpng_network_programming_from_event_seconds_count'),
  });

  beforeAll(async () => {
    configureLogging({ format: 'json', write: (line) => void coreLog.push(line) });
    await sweepLeftovers();
    // A real node has a default route; without one, unNATed Service traffic dies in routing.
    lab = await Lab.create({
      pods: ['client', 'web-1', 'web-2', 'web-3'],
      remotePods: ['web-r'],
      nodeDefaultRoute: true,
    });
    await Promise.all(['web-1', 'web-2', 'web-3', 'web-r'].map((name) => lab.startEcho(name, [PORT])));

    server = await FakeApiServer.start();
    kubeconfig = await kubeconfigFor(server);
    server.create({
      kind: 'Node',
      metadata: { name: NODE, labels: { 'kubernetes.io/hostname': NODE } },
      spec: { podCIDRs: ['198.18.1.0/24', '2001:db8:1::/64'] },
      status: {
        addresses: [
          { type: 'InternalIP', address: lab.node.ipv4 },
          { type: 'InternalIP', address: lab.node.ipv6 },
        ],
      },
    });
    server.create({
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        type: 'NodePort',
        clusterIP: CLUSTER_IPS.IPv4,
        clusterIPs: [CLUSTER_IPS.IPv4, CLUSTER_IPS.IPv6],
        ipFamilies: ['IPv4', 'IPv6'],
        ipFamilyPolicy: 'RequireDualStack',
        ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: PORT, nodePort: NODE_PORT }],
      },
    });
    for (const s of slices(['web-1'])) server.create(s);

    kpng = await runProxy({
      nodeName: NODE as NodeName,
      source: new KubeSource({
        kubeConfig: loadKubeConfig({ kubeconfigPath: kubeconfig.path }),
        nodeName: NODE,
        backoff: { initialMs: 10, maxMs: 100, jitter: 0 },
      }),
      backend: new NftBackend({
        localDetector: { mode: 'ClusterCIDR', clusterCIDRs: ['198.18.0.0/22', '2001:db8::/46'] },
        serviceCIDRs: ['198.19.0.0/16', '2001:db8:5e::/64'],
        netns: lab.node.namespace.name,
      }),
      minSyncPeriodMs: MIN_SYNC_MS,
      syncPeriodMs: 30_000,
      fullSyncPeriodMs: 3_600_000,
      proxyMode: 'nftables',
    });
    await kpng.firstState;
    await eventually(
      'the first sync programs the Service',
      () => coreLog.some((l) => l.includes('"msg":"synced"')),
      15_000,
    );
    expect(await lab.probe(lab.pod('client'), { proto: 'tcp', ip: CLUSTER_IPS.IPv4, port: 80 })).toMatchObject({
      ok: true,
      server: 'web-1',
    });

    dialer = await NetnsDialer.start(lab.pod('client').namespace);
    client = await startClient(
      main,
      [
        '--service-namespace=default',
        '--service-name=web',
        `--node-ip=${lab.node.ipv4}`,
        `--kubeconfig=${kubeconfig.path}`,
        '--probe-interval=20ms',
        '--probe-timeout=200ms',
        '--connections-per-attempt=4',
        '--target-timeout=20s',
      ],
      dialer,
    );
    await client.log.waitFor('endpoint slices synced');
    // Trigger times from before the client started are ignored (as kube-proxy does): start later.
    await sleep(2 * CONTROLLER_LAG_MS);
  }, 60_000);

  afterAll(async () => {
    if (client) expect(await client.stop()).toBe(0);
    await kpng?.stop();
    await dialer?.close();
    await kubeconfig?.remove();
    await server?.close();
    await lab?.delete();
  });

  const changes: [added: string, endpoints: string[]][] = [
    ['web-2', ['web-1', 'web-2']],
    ['web-3', ['web-1', 'web-2', 'web-3']],
    ['web-r', ['web-1', 'web-2', 'web-3', 'web-r']],
  ];

  it.each(changes)(
    "adding %s: the client sees it answer on every path, from the trigger time (printed beside kpng's own latency)",
    async (added, endpoints) => {
      await sleep(50); // shortly after the previous sync: this one waits for minSyncPeriod
      const before = await npl();
      const trigger = Date.now() - CONTROLLER_LAG_MS;
      for (const s of slices(endpoints, trigger)) server.update(s);

      const paths = [
        { path: 'ClusterIP', ipFamily: 'IPv4' },
        { path: 'ClusterIP', ipFamily: 'IPv6' },
        { path: 'NodePort', ipFamily: 'IPv4' },
      ];
      const answered = await Promise.all(
        paths.map((p) =>
          client.log.waitFor('endpoint answered through the Service', { endpoint: added, ...p }, 20_000),
        ),
      );
      let after = await npl();
      for (
        let i = 0;
        i < 100 && (after.count === before.count || after.fromEventCount === before.fromEventCount);
        i++
      ) {
        await sleep(20);
        after = await npl();
      }
      expect(after.count).toBeGreaterThan(before.count);
      const kpngSeconds = (after.sum - before.sum) / (after.count - before.count);
      expect(after.fromEventCount).toBeGreaterThan(before.fromEventCount);
      const kpngFromEvent = (after.fromEventSum - before.fromEventSum) / (after.fromEventCount - before.fromEventCount);
      // The trigger time precedes the watch event by the controller lag (plus the watch delivery).
      expect(kpngSeconds - kpngFromEvent).toBeGreaterThanOrEqual(CONTROLLER_LAG_MS / 1_000 - 0.01);

      for (const record of answered) {
        expect(record).toMatchObject({
          startSource: 'trigger-time',
          reply: expect.stringMatching(new RegExp(`^${added} `)),
        });
        const seconds = record['latencySeconds'] as number;
        // Causal, not a time bound: the trigger time precedes the update by the controller lag.
        expect(seconds, `${record['path']} ${record['ipFamily']}`).toBeGreaterThanOrEqual(CONTROLLER_LAG_MS / 1_000);
        // From the watch event, less than from the trigger time, by the lag at least.
        expect(seconds - (record['latencyFromWatchSeconds'] as number)).toBeGreaterThanOrEqual(
          CONTROLLER_LAG_MS / 1_000 - 0.01,
        );
      }
      const text = await client.metrics();
      const attempts = (result: string) =>
        sample(text, `kpng_test_client_probe_attempts_total{measurement="service_programming",result="${result}"}`) ??
        0;
      const skipped =
        sample(text, 'kpng_test_client_probe_ticks_skipped_total{measurement="service_programming"}') ?? 0;
      console.info(
        `[service programming] +${added}: kpng network_programming_duration ${kpngSeconds.toFixed(3)} s, from event ${kpngFromEvent.toFixed(3)} s; client (trigger time / watch) ` +
          answered
            .map(
              (r) =>
                `${r['path']}/${r['ipFamily']} ${r['latencySeconds']} / ${r['latencyFromWatchSeconds']} s (${r['attempts']} attempts)`,
            )
            .join(', ') +
          `; so far: ${attempts('timeout')} timeouts, ${attempts('unanswered')} unanswered, ${skipped} ticks skipped`,
      );
    },
  );

  it("exposes the samples with kube-proxy's NPL buckets, one series per start source", async () => {
    const text = await client.metrics();
    for (const start of ['trigger-time', 'watch']) {
      expect(
        sample(text, `service_programming_latency_seconds_count{path="ClusterIP",ip_family="IPv4",start="${start}"}`),
      ).toBe(3);
      expect(
        sample(text, `service_programming_latency_seconds_count{path="ClusterIP",ip_family="IPv6",start="${start}"}`),
      ).toBe(3);
      expect(
        sample(text, `service_programming_latency_seconds_count{path="NodePort",ip_family="IPv4",start="${start}"}`),
      ).toBe(3);
    }
    expect(
      sample(
        text,
        'service_programming_latency_seconds_bucket{le="0",path="ClusterIP",ip_family="IPv4",start="trigger-time"}',
      ),
    ).toBe(0);
    expect(
      sample(text, 'kpng_test_client_targets_unreached_total{measurement="service_programming",reason="deadline"}'),
    ).toBe(0);
    expect(
      sample(text, 'kpng_test_client_probe_attempts_total{measurement="service_programming",result="mismatch"}'),
    ).toBeGreaterThan(0);
  });
});
