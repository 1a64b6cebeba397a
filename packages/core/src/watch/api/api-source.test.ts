import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GlobalSnapshot } from '../../model/global-model.js';
import type { EndpointSliceModel, ModelEvent, ObjectKind, ServiceModel } from '../../model/types.js';
import { RecordingLogger } from '../../sync/recording-logger.js';
import { StateHub } from '../../stream/hub.js';
import { serveGlobalState } from '../../stream/server/global-server.js';
import { changed, everything, harness } from '../../stream/testdata/harness.js';
import { ApiSource } from './api-source.js';

const h = harness();
afterEach(() => h.cleanup());

function service(i: number, port = 80): ServiceModel {
  return {
    namespace: 'shop',
    name: `svc-${i}`,
    type: 'ClusterIP',
    clusterIPs: [`198.19.${i >> 8}.${i & 255}`],
    externalIPs: [],
    loadBalancerIPs: [],
    loadBalancerSourceRanges: [],
    ports: [{ name: '', protocol: 'TCP', port, nodePort: 0, targetPort: 8080 }],
    sessionAffinity: { type: 'None' },
    externalTrafficPolicy: 'Cluster',
    internalTrafficPolicy: 'Cluster',
    healthCheckNodePort: 0,
  };
}

function slice(i: number): EndpointSliceModel {
  return {
    namespace: 'shop',
    name: `svc-${i}-abcde`,
    serviceName: `svc-${i}`,
    addressType: 'IPv4',
    ports: [{ name: '', protocol: 'TCP', port: 8080 }],
    endpoints: [{ address: `198.18.${i >> 8}.${i & 255}`, ready: true, serving: true, terminating: false }],
  };
}

function snapshot(revision: number, services: readonly ServiceModel[], slices: readonly EndpointSliceModel[]) {
  const s: GlobalSnapshot = { revision, services, endpointSlices: slices, nodes: [], serviceCIDRs: [] };
  return s;
}

/** A sink recording each transaction with the event-loop turn it ran in, and when each kind synced. */
function recordingSink() {
  let turn = 0;
  let ticking = true;
  const tick = () => {
    turn++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const transactions: { turn: number; events: readonly ModelEvent[]; beforeSynced: boolean }[] = [];
  const synced = new Set<ObjectKind>();
  return {
    transactions,
    synced,
    stop: () => (ticking = false),
    sink: {
      apply: (events: readonly ModelEvent[]) =>
        void transactions.push({ turn, events, beforeSynced: synced.size === 0 }),
      synced: (kind: ObjectKind) => void synced.add(kind),
    },
  };
}

describe('ApiSource (a global-mode agent)', () => {
  it('applies its first state in transactions a turn apiece before any kind is synced; a later state is one transaction', async () => {
    const n = 400;
    const services = Array.from({ length: n }, (_, i) => service(i));
    const slices = Array.from({ length: n }, (_, i) => slice(i));
    const hub = new StateHub<GlobalSnapshot>({ instanceId: 'central' });
    const server = h.server(await serveGlobalState({ hub, address: `unix://${await h.dir()}/g.sock` }));
    hub.publish(snapshot(1, services, slices), everything);
    const r = recordingSink();
    const source = new ApiSource({ address: server.address, log: new RecordingLogger(), turnBudgetMs: 0 });
    h.watch((signal) => source.run(r.sink, signal).finally(r.stop));
    await vi.waitFor(() => expect(r.synced.size).toBe(4), { timeout: 10_000 });

    // 800 events, 256 a transaction: four transactions, each in a turn of its own, all before synced.
    expect(r.transactions.map((t) => t.events.length)).toEqual([256, 256, 256, 32]);
    expect(r.transactions.every((t) => t.beforeSynced)).toBe(true);
    const turns = r.transactions.map((t) => t.turn);
    expect(new Set(turns).size).toBe(turns.length);
    expect(r.transactions.flatMap((t) => t.events).map((e) => e.key)).toEqual([
      ...services.map((s) => `shop/${s.name}`),
      ...slices.map((s) => `shop/${s.name}`),
    ]);

    // Every Service changed at once, after the first state: one transaction, never half a state.
    const moved = services.map((_, i) => service(i, 81));
    hub.publish(snapshot(2, moved, slices), changed(...moved.map((s) => `shop/${s.name}`)));
    await vi.waitFor(() => expect(r.transactions).toHaveLength(5), { timeout: 10_000 });
    expect(r.transactions[4]!.events).toHaveLength(n);
    expect(r.transactions[4]!.beforeSynced).toBe(false);
  });
});
