/**
 * Objects decoded from either stream pass the checks an API object passes before they reach the
 * model or a handler: a hostile peer's newline in an "IP" never reaches a kernel tool.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GlobalSnapshot } from '../model/global-model.js';
import type { ModelEvent, ServiceModel } from '../model/types.js';
import type { NodeLocalState } from '../nodeview/types.js';
import { invalidObjectsTotal } from '../metrics/objects.js';
import { RecordingLogger } from '../sync/recording-logger.js';
import { ApiSource } from '../watch/api/api-source.js';
import { localServiceProblems } from '../watch/convert/validate.js';
import { watchLocalState } from './client/client.js';
import { StateHub } from './hub.js';
import { serveGlobalState } from './server/global-server.js';
import { serveLocalState } from './server/local-server.js';
import { changed, everything, harness } from './testdata/harness.js';
import { aRichLocalState } from './testing-fixtures.js';

const h = harness();
const logger = new RecordingLogger();
afterEach(() => h.cleanup());

async function invalidCount(kind: string): Promise<number> {
  return (await invalidObjectsTotal.get()).values.find((v) => v.labels['kind'] === kind)?.value ?? 0;
}

const good: ServiceModel = {
  namespace: 'shop',
  name: 'front',
  type: 'ClusterIP',
  clusterIPs: ['198.19.0.10'],
  externalIPs: [],
  loadBalancerIPs: [],
  loadBalancerSourceRanges: [],
  ports: [{ name: '', protocol: 'TCP', port: 80, nodePort: 0, targetPort: 8080 }],
  sessionAffinity: { type: 'None' },
  externalTrafficPolicy: 'Cluster',
  internalTrafficPolicy: 'Cluster',
  healthCheckNodePort: 0,
};
// What iptables-restore would read as a rule of its own, were it pasted into its input.
const injected = '198.19.0.11\n-A INPUT -j DROP';

function snapshot(revision: number, services: readonly ServiceModel[]): GlobalSnapshot {
  return { revision, services, endpointSlices: [], nodes: [], serviceCIDRs: [] };
}

describe('the global stream (--api)', () => {
  it('refuses and counts an invalid object, keeps the version delivered before it, and serves the rest', async () => {
    const hub = new StateHub<GlobalSnapshot>({ instanceId: 'central' });
    const server = h.server(await serveGlobalState({ logger, hub, address: '127.0.0.1:0' }));
    const other: ServiceModel = { ...good, name: 'other', clusterIPs: ['198.19.0.11'] };
    hub.publish(snapshot(1, [good, other]), everything);
    const applied: ModelEvent[] = [];
    const sink = { apply: (events: readonly ModelEvent[]) => void applied.push(...events), synced: () => {} };
    const source = new ApiSource({ address: server.address, log: logger });
    h.watch((signal) => source.run(sink, signal));
    await vi.waitFor(() => expect(applied).toHaveLength(2), { timeout: 10_000 });

    const before = await invalidCount('Service');
    const hostile: ServiceModel = { ...other, clusterIPs: [injected], externalIPs: ['203.0.113.1/24'] };
    const renamed: ServiceModel = { ...good, ports: [{ ...good.ports[0]!, port: 81 }] };
    hub.publish(snapshot(2, [renamed, hostile]), changed('shop/front', 'shop/other'));
    await vi.waitFor(() => expect(applied).toHaveLength(3), { timeout: 10_000 });
    expect(applied[2]).toMatchObject({ kind: 'Service', op: 'upsert', object: renamed });
    expect(await invalidCount('Service')).toBe(before + 1);

    // The same hostile object again is not reported again, and nothing deleted the version before it.
    hub.publish(snapshot(3, [renamed, hostile, { ...good, name: 'third' }]), changed('shop/third'));
    await vi.waitFor(() => expect(applied).toHaveLength(4), { timeout: 10_000 });
    expect(applied.some((e) => e.op === 'delete')).toBe(false);
    expect(await invalidCount('Service')).toBe(before + 1);
    expect(
      applied.flatMap((e) => (e.op === 'upsert' && e.kind === 'Service' ? e.object.clusterIPs : [])),
    ).not.toContain(injected);
  });
});

describe('the node-local stream (--connect)', () => {
  it('refuses a state with an invalid object: the handler keeps the state it has; a valid state after it is delivered', async () => {
    const hub = new StateHub<NodeLocalState>({ instanceId: 'core' });
    const server = h.server(await serveLocalState({ logger, hub, address: `unix://${await h.dir()}/s.sock` }));
    // The codec fixture also holds objects no node view builds (a unicode name): only the valid ones.
    const rich = aRichLocalState();
    const state = { ...rich, services: rich.services.filter((s) => localServiceProblems(s).length === 0) };
    expect(state.services.length).toBeGreaterThan(0);
    hub.publish(state, everything);
    const seen: NodeLocalState[] = [];
    h.watch((signal) =>
      watchLocalState(server.address, (s) => void seen.push(s), {
        signal,
        logger,
        backoff: { initialMs: 10, maxMs: 50 },
      }),
    );
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 10_000 });

    const before = await invalidCount('Service');
    const [svc, ...rest] = state.services;
    const family = svc!.families.IPv4!;
    const hostile = { ...svc!, families: { ...svc!.families, IPv4: { ...family, clusterIP: injected } } };
    hub.publish({ ...state, services: [hostile, ...rest] }, changed(String(svc!.key)));
    await vi.waitFor(async () => expect(await invalidCount('Service')).toBeGreaterThan(before), { timeout: 10_000 });
    expect(seen).toHaveLength(1);

    const node = { ...state.node, addresses: ['198.18.255.1 '] };
    hub.publish({ ...state, node }, { ...changed(), nodeChanged: true });
    await vi.waitFor(async () => expect(await invalidCount('Node')).toBeGreaterThan(0), { timeout: 10_000 });
    expect(seen).toHaveLength(1);

    hub.publish(state, everything);
    await vi.waitFor(() => expect(seen).toHaveLength(2), { timeout: 10_000 });
    expect(seen[1]).toEqual(state);
  });
});
