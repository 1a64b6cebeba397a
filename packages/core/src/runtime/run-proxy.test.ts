import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { NodeName } from '../model/types.js';
import type { NodeLocalState } from '../nodeview/types.js';
import type { SyncRequest } from '../sync/backend.js';
import { watchLocalState } from '../stream/client/client.js';
import { eventually } from '../../test/support/source-sink.js';
import { FileSource } from '../watch/file/index.js';
import { healthCheckAddressesFor } from '../health/health-check-addresses.js';
import { runProxy, type RunningProxy } from './run-proxy.js';

const EXAMPLE = new URL('../../../../examples/cluster.yaml', import.meta.url).pathname;

class RecordingBackend {
  readonly name = 'recording';
  readonly families = ['IPv4', 'IPv6'] as const;
  readonly syncs: SyncRequest[] = [];
  async sync(req: SyncRequest) {
    this.syncs.push(req);
  }
  async cleanup() {}
}

describe('runProxy: one kpng process on the example cluster', () => {
  let dir: string;
  let kpng: RunningProxy | undefined;
  const abort = new AbortController();
  afterEach(async () => {
    abort.abort();
    await kpng?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the node-local state in-process, over the socket, on /metrics and /healthz, and follows file edits', async () => {
    dir = mkdtempSync(join(tmpdir(), 'kpng-run-'));
    const manifest = join(dir, 'cluster.yaml');
    copyFileSync(EXAMPLE, manifest);
    const backend = new RecordingBackend();
    kpng = await runProxy({
      nodeName: 'node-a' as NodeName,
      source: new FileSource({ path: manifest, pollIntervalMs: 50 }),
      backend,
      listen: { kind: 'unix', path: join(dir, 'kpng.sock') },
      metricsBindAddress: { kind: 'tcp', host: '127.0.0.1', port: 0 },
      healthzBindAddress: { kind: 'tcp', host: '127.0.0.1', port: 0 },
      minSyncPeriodMs: 0,
      syncPeriodMs: 30_000,
      fullSyncPeriodMs: 3_600_000,
      proxyMode: 'recording',
    });

    const first = await kpng.firstState;
    expect(first.services.map((s) => s.key)).toContain('shop/frontend');
    await eventually('first sync', () => backend.syncs.length > 0);
    expect(backend.syncs[0]!.full).toBe(true);

    const received: NodeLocalState[] = [];
    const watching = watchLocalState(`unix://${join(dir, 'kpng.sock')}`, (s) => void received.push(s), {
      signal: abort.signal,
    });
    await eventually('state over the socket', () => received.length > 0);
    expect(received[0]!.services.map((s) => s.key)).toEqual(first.services.map((s) => s.key));

    const metricsUrl = `http://127.0.0.1:${kpng.metricsServer!.address.port}`;
    const metrics = await (await fetch(`${metricsUrl}/metrics`)).text();
    expect(metrics).toMatch(/kubeproxy_sync_proxy_rules_last_timestamp_seconds\{ip_family="IPv4"\} [1-9]/);
    expect(metrics).toMatch(/kpng_model_objects\{kind="Service"\} 6/);
    expect(metrics).toMatch(/kpng_stream_clients\{api="local"\} 1/);
    // The model counted the Services received; the successful first sync took them off "pending".
    expect(metrics).toMatch(/kubeproxy_sync_proxy_rules_service_changes_total [1-9]/);
    expect(metrics).toMatch(/kubeproxy_sync_proxy_rules_service_changes_pending 0\n/);
    expect(await (await fetch(`${metricsUrl}/proxyMode`)).text()).toBe('recording');
    const health = await fetch(`http://127.0.0.1:${kpng.healthServer!.address()!.port}/healthz`);
    expect(health.status).toBe(200);

    // Removing one Service from the file reaches the backend as a partial sync and the socket client.
    const text = readFileSync(manifest, 'utf8');
    const start = text.indexOf('- apiVersion: v1\n  kind: Service\n  metadata:\n    name: inventory');
    expect(start).toBeGreaterThan(0);
    const end = text.indexOf('\n- apiVersion', start + 10);
    writeFileSync(manifest, text.slice(0, start) + text.slice(end + 1));
    await eventually('partial sync without inventory', () =>
      backend.syncs.some(
        (s) =>
          !s.full &&
          s.changes.updatedServices?.has('shop/inventory' as never) &&
          !s.state.services.some((x) => x.key === 'shop/inventory'),
      ),
    );
    await eventually('socket client sees the removal', () =>
      received.at(-1)!.services.every((s) => s.key !== 'shop/inventory'),
    );
    abort.abort();
    await watching;
  });

  it("resolves the health-check ports' nodePortAddresses once a sync for a backend that declares none, onto the synced node", async () => {
    dir = mkdtempSync(join(tmpdir(), 'kpng-run-'));
    const backend = new RecordingBackend();
    kpng = await runProxy({
      nodeName: 'node-a' as NodeName,
      source: new FileSource({ path: EXAMPLE }),
      backend,
      // Loopback only: the example's health-check node port (32100) may open on 127.0.0.1, never elsewhere.
      healthCheckAddresses: healthCheckAddressesFor(['127.0.0.0/8']),
      minSyncPeriodMs: 0,
      syncPeriodMs: 30_000,
      fullSyncPeriodMs: 3_600_000,
      proxyMode: 'recording',
    });
    await eventually('first sync', () => backend.syncs.length > 0);
    const resolved = backend.syncs[0]!.state.node.nodePortAddresses;
    expect(resolved?.IPv6).toBe('all');
    expect(resolved?.IPv4).toContain('127.0.0.1');
  });

  it("runs a backend on another core's stream (split mode): same syncs, no core in this process", async () => {
    dir = mkdtempSync(join(tmpdir(), 'kpng-run-'));
    const socket = join(dir, 'kpng.sock');
    kpng = await runProxy({
      nodeName: 'node-a' as NodeName,
      source: new FileSource({ path: EXAMPLE }),
      listen: { kind: 'unix', path: socket },
      minSyncPeriodMs: 0,
      syncPeriodMs: 30_000,
      fullSyncPeriodMs: 3_600_000,
      proxyMode: 'kpng-core',
    });
    const backend = new RecordingBackend();
    const stop = new AbortController();
    const agent = await runProxy({
      nodeName: 'node-a' as NodeName,
      source: { kind: 'connect', address: `unix://${socket}` },
      backend,
      minSyncPeriodMs: 0,
      syncPeriodMs: 30_000,
      fullSyncPeriodMs: 3_600_000,
      proxyMode: 'recording',
      signal: stop.signal,
    });
    expect(agent.nodeView).toBeUndefined();
    const first = await agent.firstState;
    expect(first.services.map((s) => s.key)).toEqual((await kpng.firstState).services.map((s) => s.key));
    await eventually('first sync from the stream', () => backend.syncs.length > 0);
    expect(backend.syncs[0]!.full).toBe(true);
    stop.abort(); // the signal stops it like SIGTERM would
    await agent.done;
  });
});
