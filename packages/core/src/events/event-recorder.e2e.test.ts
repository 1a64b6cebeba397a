import { createServer } from 'node:net';
import { FakeApiServer, kubeconfigFor, type LabKubeconfig } from '@kpng/lab';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServiceHealthServers } from '../health/service-health.js';
import { aLocalService } from '../../test/support/local-state-fixtures.js';
import { serviceKey } from '../model/types.js';
import { RecordingLogger } from '../sync/recording-logger.js';
import { FakeClock } from '../util/fake-clock.js';
import { loadKubeConfig } from '../watch/kube/load-kubeconfig.js';
import { KubeEventRecorder, SERIES_FINISH_MS } from './event-recorder.js';

/** The Events upstream kube-proxy posts, through the recorder, to the lab's fake API server. */
describe('KubeEventRecorder against the fake API server', () => {
  let server: FakeApiServer;
  let kubeconfig: LabKubeconfig;
  let recorder: KubeEventRecorder;
  let clock: FakeClock;

  beforeEach(async () => {
    server = await FakeApiServer.start();
    kubeconfig = await kubeconfigFor(server);
    recorder = new KubeEventRecorder({
      kubeConfig: loadKubeConfig({ kubeconfigPath: kubeconfig.path }),
      component: 'kube-proxy',
      host: 'lab-node',
      clock: (clock = new FakeClock()),
      log: new RecordingLogger(),
    });
  });
  afterEach(async () => {
    recorder.close();
    await kubeconfig.remove();
    await server.close();
  });

  it("posts events.k8s.io/v1 Events as client-go's broadcaster: a Node's in default", async () => {
    recorder.record({
      regarding: { kind: 'Node', name: 'lab-node', uid: 'lab-node' },
      type: 'Normal',
      reason: 'Starting',
      action: 'StartKubeProxy',
      note: '',
    });
    await recorder.flush();
    expect(server.objects('Event')).toMatchObject([
      {
        apiVersion: 'events.k8s.io/v1',
        metadata: { namespace: 'default', name: expect.stringMatching(/^lab-node\.[0-9a-f]+$/) },
        eventTime: '2025-01-01T00:00:00.000000Z',
        reportingController: 'kube-proxy',
        reportingInstance: 'kube-proxy-lab-node',
        regarding: { kind: 'Node', name: 'lab-node', uid: 'lab-node' },
        type: 'Normal',
        reason: 'Starting',
        action: 'StartKubeProxy',
      },
    ]);
  });

  it('a health-check node port that cannot be opened is a FailedToStartServiceHealthcheck Warning on the Service', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const health = new ServiceHealthServers({
      addresses: ['127.0.0.1'],
      log: new RecordingLogger(),
      events: recorder,
      nodeName: 'lab-node',
    });
    try {
      const svc = aLocalService('web', {
        healthCheckNodePort: port,
        externalPolicyLocal: true,
        externallyAccessible: true,
        type: 'LoadBalancer',
      });
      await health.sync([svc], () => true);
      await recorder.flush();
    } finally {
      await health.close();
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
    const [event] = server.objects('Event');
    expect(event).toMatchObject({
      metadata: { namespace: 'default' },
      regarding: { kind: 'Service', namespace: 'default', name: 'web', uid: serviceKey('default', 'web') },
      type: 'Warning',
      reason: 'FailedToStartServiceHealthcheck',
      action: 'Listen',
      note: expect.stringMatching(
        new RegExp(`^node lab-node failed to start healthcheck "default/web" on port ${port}: .*EADDRINUSE`),
      ),
    });
  });

  it("aggregates isomorphic Events into a series as client-go's: one POST, the count PATCHed, not a POST per sync", async () => {
    const failed = (service: string, port: number) =>
      recorder.record({
        regarding: { kind: 'Service', namespace: 'default', name: service, uid: `default/${service}` },
        type: 'Warning',
        reason: 'FailedToStartServiceHealthcheck',
        action: 'Listen',
        note: `port ${port}`, // not part of the series' identity
      });
    const stored = () =>
      server.objects('Event') as unknown as { regarding: { name: string }; series?: { count: number } }[];
    const verbs = () =>
      server
        .requests()
        .filter((r) => r.resource === 'events')
        .map((r) => `${r.verb} ${r.status}`);

    // A sync every second for 10 s: the first is POSTed, the second PATCHes the series (count 2).
    for (let i = 0; i < 10; i++) {
      failed('web', 30_000 + i);
      await clock.tick(1_000);
    }
    failed('other', 31_000); // another object: its own Event
    await recorder.flush();
    expect(verbs().sort()).toEqual(['create 201', 'create 201', 'patch 200']); // in any order: real I/O
    expect(stored().map((e) => [e.regarding.name, e.series?.count])).toEqual([
      ['web', 2],
      ['other', undefined],
    ]);

    // Still failing every minute for 40 min: the count is sent again every 30 min, not per Event.
    for (let minute = 0; minute < 40; minute++) {
      failed('web', 30_000);
      await clock.tick(60_000);
    }
    await recorder.flush();
    const webCount = () => stored().find((e) => e.regarding.name === 'web')?.series?.count;
    // Sweeps run every 6 min from the first Event; the one at 36 min finds the count 30 min old and
    // sends it: 10 + the 36 failures before it.
    expect(verbs().filter((v) => v === 'patch 200')).toHaveLength(2);
    expect(webCount()).toBe(46);

    // It stops failing: within one more finish period the final count (50) is sent and the series ends.
    await clock.tick(SERIES_FINISH_MS * 2 + 1);
    await recorder.flush();
    expect(webCount()).toBe(50);
    // A later failure starts a new Event.
    failed('web', 30_000);
    await recorder.flush();
    expect(stored().filter((e) => e.regarding.name === 'web')).toHaveLength(2);
  });
});
