import { createServer } from 'node:net';
import { FakeApiServer, kubeconfigFor, type LabKubeconfig } from '@kpng/lab';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServiceHealthServers } from '../health/service-health.js';
import { aLocalService } from '../sync/local-state-fixtures.js';
import { serviceKey } from '../model/types.js';
import { RecordingLogger } from '../sync/recording-logger.js';
import { FakeClock } from '../util/fake-clock.js';
import { loadKubeConfig } from '../watch/kube/load-kubeconfig.js';
import { KubeEventRecorder } from './event-recorder.js';

/** The Events upstream kube-proxy posts, through the recorder, to the lab's fake API server. */
describe('KubeEventRecorder against the fake API server', () => {
  let server: FakeApiServer;
  let kubeconfig: LabKubeconfig;
  let recorder: KubeEventRecorder;

  beforeEach(async () => {
    server = await FakeApiServer.start();
    kubeconfig = await kubeconfigFor(server);
    recorder = new KubeEventRecorder({
      kubeConfig: loadKubeConfig({ kubeconfigPath: kubeconfig.path }),
      component: 'kube-proxy',
      host: 'lab-node',
      clock: new FakeClock(),
      log: new RecordingLogger(),
    });
  });
  afterEach(async () => {
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
});
