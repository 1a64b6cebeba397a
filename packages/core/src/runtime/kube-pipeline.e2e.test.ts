import { FakeApiServer, kubeconfigFor, type LabKubeconfig } from '@kpng/lab';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NodeName, ServiceKey } from '../model/types.js';
import type { SyncRequest } from '../sync/backend.js';
import { eventually } from '../../test/support/source-sink.js';
import { KubeSource, loadKubeConfig } from '../watch/kube/index.js';
import { endpointSlice, node, service } from '../watch/kube/testdata/objects.js';
import { invalidObjectsTotal } from '../metrics/objects.js';
import { runProxy, type RunningProxy } from './run-proxy.js';

/**
 * The whole core pipeline against the fake API server: informers -> model -> node view -> sync
 * loop -> backend. Each API change must reach the backend in the next sync, across 410 Gone and
 * dropped connections, and a malformed object must be skipped while everything else is served.
 */
class RecordingBackend {
  readonly name = 'recording';
  readonly families = ['IPv4'] as const;
  readonly syncs: SyncRequest[] = [];
  async sync(req: SyncRequest) {
    this.syncs.push(req);
  }
  async cleanup() {}
  endpointsOf(key: string): string[] | undefined {
    const svc = this.syncs.at(-1)?.state.services.find((s) => s.key === (key as ServiceKey));
    return svc?.ports[0]?.endpoints.IPv4?.internal.map((e) => `${e.ip}:${e.port}`);
  }
}

describe('core pipeline on the fake API server', () => {
  let server: FakeApiServer;
  let kubeconfig: LabKubeconfig;
  let kpng: RunningProxy;
  let backend: RecordingBackend;

  beforeEach(async () => {
    server = await FakeApiServer.start();
    kubeconfig = await kubeconfigFor(server);
    server.create(node('node-a'));
    server.create(service('web'));
    server.create(endpointSlice('web-1', 'web', { addresses: ['198.18.1.5'] }));
    backend = new RecordingBackend();
    kpng = await runProxy({
      nodeName: 'node-a' as NodeName,
      source: new KubeSource({
        kubeConfig: loadKubeConfig({ kubeconfigPath: kubeconfig.path }),
        nodeName: 'node-a',
        backoff: { initialMs: 10, maxMs: 100, jitter: 0 },
      }),
      backend,
      minSyncPeriodMs: 0,
      syncPeriodMs: 30_000,
      fullSyncPeriodMs: 3_600_000,
      proxyMode: 'recording',
    });
  });
  afterEach(async () => {
    await kpng.stop();
    await kubeconfig.remove();
    await server.close();
  });

  it('follows add, update and delete into the next sync', async () => {
    await eventually('initial sync', () => backend.endpointsOf('shop/web')?.join() === '198.18.1.5:8080');
    expect(backend.syncs[0]!.full).toBe(true);

    server.update(endpointSlice('web-1', 'web', { addresses: ['198.18.1.5', '198.18.1.6'] }));
    await eventually(
      'endpoint added',
      () => backend.endpointsOf('shop/web')?.join() === '198.18.1.5:8080,198.18.1.6:8080',
    );
    const partial = backend.syncs.at(-1)!;
    expect(partial.full).toBe(false);
    expect([...(partial.changes.updatedServices ?? [])]).toEqual(['shop/web']);

    server.create(service('api', { ip: '198.19.0.11' }));
    await eventually('service added', () => backend.syncs.at(-1)!.state.services.some((s) => s.key === 'shop/api'));
    server.delete(service('web'));
    await eventually('service deleted', () => !backend.syncs.at(-1)!.state.services.some((s) => s.key === 'shop/web'));
  });

  it('keeps following changes after 410 Gone and dropped connections', async () => {
    await eventually('initial sync', () => backend.endpointsOf('shop/web') !== undefined);
    server.compact();
    server.update(endpointSlice('web-1', 'web', { addresses: ['198.18.1.7'] }));
    await eventually('change after 410', () => backend.endpointsOf('shop/web')?.join() === '198.18.1.7:8080');
    server.dropConnections();
    server.update(endpointSlice('web-1', 'web', { addresses: ['198.18.1.8'] }));
    await eventually(
      'change after dropped connections',
      () => backend.endpointsOf('shop/web')?.join() === '198.18.1.8:8080',
      20_000,
    );
  });

  it('skips a malformed Service with a warning and a counter, and serves the rest', async () => {
    await eventually('initial sync', () => backend.endpointsOf('shop/web') !== undefined);
    const before = await invalidServices();
    const broken = service('broken', { ip: '198.19.0.12' });
    server.create({ ...broken, spec: { ...broken.spec, clusterIP: '198.19.0.999', clusterIPs: ['198.19.0.999'] } });
    server.create({
      ...service('zero', { ip: '198.19.0.13' }),
      spec: {
        ...service('zero').spec,
        clusterIP: '198.19.0.13',
        clusterIPs: ['198.19.0.13'],
        ports: [{ name: 'http', protocol: 'TCP', port: 0 }],
      },
    });
    server.create(service('fine', { ip: '198.19.0.14' }));
    await eventually('the valid Service arrives', () =>
      backend.syncs.at(-1)!.state.services.some((s) => s.key === 'shop/fine'),
    );
    const keys = backend.syncs.at(-1)!.state.services.map((s) => s.key);
    expect(keys).toEqual(['shop/fine', 'shop/web']);
    expect(await invalidServices()).toBe(before + 2);
  });
});

async function invalidServices(): Promise<number> {
  const metric = (await invalidObjectsTotal.get()).values;
  return metric.filter((v) => v.labels['kind'] === 'Service').reduce((n, v) => n + v.value, 0);
}
