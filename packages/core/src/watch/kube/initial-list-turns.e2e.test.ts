import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeApiServer, kubeconfigFor } from '@kpng/lab';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ModelEvent } from '../../model/types.js';
import { KubeSource } from './kube-source.js';
import { loadKubeConfig } from './load-kubeconfig.js';
import { endpointSlice, node, service } from './testdata/objects.js';
import { RecordingSink } from './testdata/recording-sink.js';

/**
 * A big initial list must not hold the event loop: the kube source delivers it over many turns,
 * and an HTTP request (what a kubelet's liveness probe on /healthz is) sent when the first batch
 * arrives is answered before the list is done. Counted in batches, never timed: a turn budget of
 * 0 makes the source yield after every few conversions whatever the machine's speed.
 */
describe('kube source, a big initial list', () => {
  let server: FakeApiServer;
  let cleanup: Array<() => Promise<void>> = [];
  beforeEach(async () => {
    server = await FakeApiServer.start();
  });
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
    cleanup = [];
    await server.close();
  });

  it('is delivered over many turns, and an HTTP request sent at its first batch is answered before it ends', async () => {
    const count = 1500;
    for (let i = 0; i < count; i++) {
      server.create(service(`svc-${i}`, { ip: `198.19.${i >> 8}.${i & 255}` }));
      server.create(endpointSlice(`svc-${i}-a`, `svc-${i}`));
    }
    server.create(node('node-a'));
    const health = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => health.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => health.close(() => resolve())));
    const url = `http://127.0.0.1:${(health.address() as AddressInfo).port}/healthz`;

    let answeredAtBatch: number | undefined;
    let asked = false;
    const sink = new (class extends RecordingSink {
      override apply(events: readonly ModelEvent[]): void {
        super.apply(events);
        if (asked) return;
        asked = true;
        get(url, (res) => {
          res.resume();
          res.on('end', () => (answeredAtBatch = this.batches.length));
        });
      }
    })();
    const kubeconfig = await kubeconfigFor(server);
    cleanup.push(() => kubeconfig.remove());
    const abort = new AbortController();
    const source = new KubeSource({
      kubeConfig: loadKubeConfig({ kubeconfigPath: kubeconfig.path }),
      nodeName: 'node-a',
      turnBudgetMs: 0,
      serviceCIDRs: false, // one batch per kind is what this file counts
    });
    const run = source.run(sink, abort.signal);
    cleanup.push(async () => {
      abort.abort();
      await run;
    });
    const deadline = Date.now() + 60_000;
    while (sink.syncs.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));

    expect(sink.syncedKinds()).toHaveLength(3);
    expect(sink.keys('Service')).toHaveLength(count);
    expect(sink.keys('EndpointSlice')).toHaveLength(count);
    const lastSync = Math.max(...sink.syncs.map((s) => s.atBatch));
    // Many batches, each one turn of the event loop...
    expect(lastSync).toBeGreaterThan(20);
    // ...and the request was answered in between, not after the whole list.
    expect(answeredAtBatch).toBeDefined();
    expect(answeredAtBatch!).toBeLessThan(lastSync);
  });
});
