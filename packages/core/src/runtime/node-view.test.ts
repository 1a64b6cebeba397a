import { describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../util/fake-clock.js';
import {
  serviceKey,
  sliceKey,
  type EndpointSliceModel,
  type ModelEvent,
  type NodeName,
  type ServiceModel,
} from '../model/types.js';
import type { NodeLocalState, StateChanges } from '../nodeview/types.js';
import { NodeView } from './node-view.js';
import { aPort, aService } from '../nodeview/testing-fixtures.js';

const NODE = 'node-a' as NodeName;

const service: ServiceModel = aService({ clusterIPs: ['198.19.0.10'], ports: [aPort({ name: 'http' })] });
const slice = (ips: string[]): EndpointSliceModel => ({
  namespace: 'default',
  name: 'web-1',
  serviceName: 'web',
  addressType: 'IPv4',
  ports: [{ name: 'http', protocol: 'TCP', port: 8080 }],
  endpoints: ips.map((address) => ({ address, ready: true, serving: true, terminating: false, nodeName: 'node-a' })),
});
const up = (s: EndpointSliceModel, triggerTime?: number): ModelEvent => ({
  kind: 'EndpointSlice',
  op: 'upsert',
  key: sliceKey('default', s.name),
  object: s,
  ...(triggerTime ? { triggerTime } : {}),
});

function recordingCore() {
  let now = 1_000;
  const core = new NodeView({
    nodeName: NODE,
    clock: { now: () => now, monotonic: () => now, setTimeout: () => ({ cancel() {} }) },
  });
  const seen: { state: NodeLocalState; changes: StateChanges }[] = [];
  core.addLocalConsumer({ publish: (state, changes) => seen.push({ state, changes }) });
  return { core, seen, advance: (ms: number) => (now += ms) };
}

describe('NodeView pipeline', () => {
  it('publishes nothing before all sources synced, then a full first state', () => {
    const { core, seen } = recordingCore();
    core.model.apply([
      { kind: 'Service', op: 'upsert', key: serviceKey('default', 'web'), object: service },
      up(slice(['198.18.1.1'])),
    ]);
    core.model.synced('Service');
    core.model.synced('EndpointSlice');
    expect(seen).toHaveLength(0);
    expect(core.state).toBeUndefined();
    core.model.synced('Node');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.changes.updatedServices).toBeUndefined(); // full
    expect(seen[0]!.state.services.map((s) => s.key)).toEqual(['default/web']);
    expect(seen[0]!.state.services[0]!.ports[0]!.endpoints.IPv4?.cluster.map((e) => e.ip)).toEqual(['198.18.1.1']);
  });

  it("puts the ServiceCIDRs' union in the node's view; a change of it is a node change (full sync)", () => {
    const { core, seen } = recordingCore();
    for (const kind of ['Service', 'EndpointSlice', 'Node'] as const) core.model.synced(kind);
    expect(seen.at(-1)!.state.node.serviceCIDRs).toBeUndefined(); // none: backends use their configured range
    core.model.apply([
      {
        kind: 'ServiceCIDR',
        op: 'upsert',
        key: 'kubernetes',
        object: { name: 'kubernetes', cidrs: ['198.19.0.0/16'] },
      },
    ]);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.state.node.serviceCIDRs).toEqual(['198.19.0.0/16']);
    expect(seen[1]!.changes.nodeChanged).toBe(true);
  });

  it('publishes only the changed Service with its trigger times, and nothing for no-op changes', () => {
    const { core, seen, advance } = recordingCore();
    core.model.apply([{ kind: 'Service', op: 'upsert', key: serviceKey('default', 'web'), object: service }]);
    for (const k of ['Service', 'EndpointSlice', 'Node'] as const) core.model.synced(k);
    advance(10);
    core.model.apply([up(slice(['198.18.1.1', '198.18.1.2']), 1_005)]);
    expect(seen).toHaveLength(2);
    expect([...(seen[1]!.changes.updatedServices ?? [])]).toEqual(['default/web']);
    expect(seen[1]!.changes.triggerTimes.get(serviceKey('default', 'web'))).toEqual([1_005]);
    // A Node other than ours changes: no new local state.
    core.model.apply([
      {
        kind: 'Node',
        op: 'upsert',
        key: 'node-b' as NodeName,
        object: { name: 'node-b', labels: {}, podCIDRs: [], addresses: [], eligible: true },
      },
    ]);
    expect(seen).toHaveLength(2);
  });

  it('hands a late consumer the current state at once', () => {
    const { core } = recordingCore();
    for (const k of ['Service', 'EndpointSlice', 'Node'] as const) core.model.synced(k);
    const late: NodeLocalState[] = [];
    core.addLocalConsumer({ publish: (s) => late.push(s) });
    expect(late).toHaveLength(1);
    expect(late[0]!.node.name).toBe('node-a');
  });
});

describe('NodeView resync (configSyncPeriod)', () => {
  const FIFTEEN_MINUTES = 15 * 60_000;

  it('re-runs every object through the node view each period; publishes only a drift it finds', async () => {
    const clock = new FakeClock();
    const resyncs: boolean[] = [];
    const core = new NodeView({
      nodeName: NODE,
      clock,
      resyncPeriodMs: FIFTEEN_MINUTES,
      onResync: (changed) => resyncs.push(changed),
    });
    const seen: StateChanges[] = [];
    core.addLocalConsumer({ publish: (_state, changes) => seen.push(changes) });
    core.model.apply([{ kind: 'Service', op: 'upsert', key: serviceKey('default', 'web'), object: service }]);
    for (const kind of ['Service', 'EndpointSlice', 'Node'] as const) core.model.synced(kind);
    expect(seen).toHaveLength(1);

    clock.advance(FIFTEEN_MINUTES - 1);
    expect(resyncs).toEqual([]);
    clock.advance(1);
    expect(resyncs).toEqual([false]); // nothing drifted: nothing published
    expect(seen).toHaveLength(1);

    // A drift: the model answers with content the node view never heard of (what a missed change
    // notification would leave behind). The next resync finds and publishes it.
    const drifted = aService({ clusterIPs: ['198.19.0.10'], ports: [aPort({ name: 'http', port: 8080 })] });
    vi.spyOn(core.model, 'service').mockImplementation(() => drifted);
    clock.advance(FIFTEEN_MINUTES);
    expect(resyncs).toEqual([false, true]);
    expect(seen).toHaveLength(2);
    expect([...(seen[1]!.updatedServices ?? [])]).toEqual(['default/web']);
    core.close();
    clock.advance(FIFTEEN_MINUTES);
    expect(resyncs).toHaveLength(2);
  });
});
