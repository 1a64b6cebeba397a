import { describe, expect, it } from 'vitest';
import type { ServiceKey } from '../../model/types.js';
import type { LocalService, NodeLocalState, StateChanges } from '../../nodeview/types.js';
import { TurnBudget } from '@kpng/kit';
import { decodeLocalState, decodeLocalStateInTurns } from './local-decode.js';
import { encodeLocalService, encodeLocalStateResponse, prepareLocalState } from './local-encode.js';
import { decodeResponse } from './envelope.js';
import type { Delivery } from '../hub.js';
import { DecodedItemCache } from './item-cache.js';
import { loadProto, toObjectOptions } from '../testdata/proto-reflection.js';
import { aRichLocalState, syntheticLocalState, withOneServiceChanged } from '../testing-fixtures.js';

const key = (s: string) => s as ServiceKey;
const changes: StateChanges = {
  updatedServices: new Set([key('shop/front'), key('default/ünïcode-😀')]),
  triggerTimes: new Map([[key('shop/front'), [1_700_000_000_123, 1_700_000_000_456]]]),
  nodeChanged: true,
};

function delivery(state: NodeLocalState, full = false): Delivery<NodeLocalState> {
  return {
    state,
    instanceId: 'f3b1c2d4-instance',
    revision: 2 ** 40 + 7,
    changes: full ? { triggerTimes: changes.triggerTimes, nodeChanged: false } : changes,
    full,
  };
}

function roundTrip(d: Delivery<NodeLocalState>, cache?: DecodedItemCache<LocalService>): Delivery<NodeLocalState> {
  const buf = encodeLocalStateResponse(d);
  const res = decodeResponse(buf);
  if (res.type !== 'state') throw new Error(`expected a state, got ${res.type}`);
  return decodeLocalState(buf, res.start, res.end, cache);
}

describe('local state codec', () => {
  it('round-trips a state with every field populated', () => {
    const d = delivery(aRichLocalState());
    const back = roundTrip(d);
    expect(back).toEqual(d);
    expect(back.changes.updatedServices).toEqual(changes.updatedServices);
  });

  it('round-trips a full delivery without updated services', () => {
    const d = delivery(aRichLocalState(), true);
    const back = roundTrip(d);
    expect(back.full).toBe(true);
    expect(back.changes.updatedServices).toBeUndefined();
    expect(back.changes.triggerTimes).toEqual(changes.triggerTimes);
  });

  it('shares decoded endpoint objects between the categorised lists', () => {
    const back = roundTrip(delivery(aRichLocalState()));
    const fe = back.state.services[1]!.ports[0]!.endpoints.IPv4!;
    expect(fe.cluster[0]).toBe(fe.allReachable[0]);
    expect(fe.internal[1]).toBe(fe.serving[1]);
  });

  it('lists equal endpoint objects once even when the view copied them', () => {
    const state = syntheticLocalState({ services: 1, endpointsPerService: 10 });
    const svc = state.services[0]!;
    const port = svc.ports[0]!;
    const fe = port.endpoints.IPv4!;
    const copied: LocalService = {
      ...svc,
      ports: [{ ...port, endpoints: { IPv4: { ...fe, serving: fe.serving.map((e) => ({ ...e })) } } }],
    };
    expect(encodeLocalService(copied).length).toBe(encodeLocalService(svc).length);
  });

  it('agrees with the published .proto (decoded by protobufjs reflection)', () => {
    const WatchResponse = loadProto('kpng/localnet/v1/localnet.proto').lookupType('kpng.localnet.v1.WatchResponse');
    const d = delivery(aRichLocalState());
    const obj = WatchResponse.toObject(WatchResponse.decode(encodeLocalStateResponse(d)), toObjectOptions);
    expect(obj['message']).toBe('state');
    const state = obj['state'];
    expect(state.instanceId).toBe(d.instanceId);
    expect(state.revision).toBe(d.revision);
    expect(state.changes.updatedServices).toEqual(['shop/front', 'default/ünïcode-😀']);
    expect(state.changes.triggerTimes[0]).toEqual({
      service: 'shop/front',
      epochMs: [1_700_000_000_123, 1_700_000_000_456],
    });
    expect(state.node.labels).toEqual(aRichLocalState().node.labels);
    const front = state.services[1];
    expect(front).toMatchObject({
      key: 'shop/front',
      type: 'SERVICE_TYPE_LOAD_BALANCER',
      clientIpAffinity: { timeoutSeconds: 10800 },
      healthCheckNodePort: 32000,
      preserveDestination: true,
    });
    // Absent (not false) on a Service without the annotation: the field is new and optional.
    expect(state.services[0]).not.toHaveProperty('preserveDestination');
    expect(front.families.map((f: { family: string }) => f.family)).toEqual(['IP_FAMILY_IPV4', 'IP_FAMILY_IPV6']);
    const v4 = front.ports[0].endpoints[0];
    expect(v4.endpoints).toHaveLength(3);
    expect(v4.cluster).toEqual([0, 1]);
    expect(v4.serving).toEqual([0, 1, 2]);
    expect(v4.endpoints[2]).toEqual({ ip: '198.18.3.10', port: 8443, serving: true, terminating: true });
    // ClientIP with timeout 0 keeps its presence.
    expect(state.services[0].clientIpAffinity).toEqual({});
  });

  it('decodes what protobufjs encodes from the .proto', () => {
    const WatchResponse = loadProto('kpng/localnet/v1/localnet.proto').lookupType('kpng.localnet.v1.WatchResponse');
    const d = delivery(aRichLocalState());
    const obj = WatchResponse.toObject(WatchResponse.decode(encodeLocalStateResponse(d)), toObjectOptions);
    const reencoded = Buffer.from(WatchResponse.encode(WatchResponse.fromObject(obj)).finish());
    const res = decodeResponse(reencoded);
    if (res.type !== 'state') throw new Error('expected a state');
    expect(decodeLocalState(reencoded, res.start, res.end)).toEqual(d);
  });

  it('reuses unchanged Services from the decode cache and decodes changed ones', () => {
    const shape = { services: 20, endpointsPerService: 3 };
    const cache = new DecodedItemCache<LocalService>();
    const first = syntheticLocalState(shape);
    const a = roundTrip(delivery(first), cache);
    const second = withOneServiceChanged(first, 4, shape, 1);
    const b = roundTrip(delivery(second), cache);
    expect(b.state).toEqual(second);
    b.state.services.forEach((svc, i) => {
      if (i === 4) expect(svc).not.toBe(a.state.services[i]);
      else expect(svc).toBe(a.state.services[i]);
    });
    expect(cache.size).toBe(20);
    const dropped = roundTrip(delivery({ ...second, services: second.services.slice(0, 5) }), cache);
    expect(dropped.state.services).toHaveLength(5);
    expect(cache.size).toBe(5);
  });

  it('decodes a state over several turns, only its changed Services, to the same result', async () => {
    const shape = { services: 200, endpointsPerService: 3 };
    const cache = new DecodedItemCache<LocalService>();
    const first = syntheticLocalState(shape);
    const a = roundTrip(delivery(first), cache);
    const second = withOneServiceChanged(withOneServiceChanged(first, 4, shape, 1), 150, shape, 1);
    const buf = encodeLocalStateResponse(delivery(second));
    const res = decodeResponse(buf);
    if (res.type !== 'state') throw new Error('expected a state');
    const decoded: LocalService[] = [];
    // A spent budget: a turn after every 16 Services read.
    const budget = new TurnBudget(0);
    const b = await decodeLocalStateInTurns(buf, res.start, res.end, cache, (svc) => decoded.push(svc), budget);
    expect(budget.yields).toBeGreaterThanOrEqual(200 / 16 - 1);
    expect(b).toEqual(decodeLocalState(buf, res.start, res.end));
    expect(decoded.map((s) => s.key)).toEqual([second.services[4]!.key, second.services[150]!.key]);
    b.state.services.forEach((svc, i) => {
      if (i === 4 || i === 150) expect(svc).toBe(decoded[i === 4 ? 0 : 1]);
      else expect(svc).toBe(a.state.services[i]);
    });
    // Malformed bytes: the codec's error, and the cache keeps the generation it had.
    await expect(decodeLocalStateInTurns(buf, res.start, res.end - 3, cache, () => undefined)).rejects.toThrow(
      /malformed/,
    );
    expect(roundTrip(delivery(second), cache).state.services[4]).toBe(decoded[0]);
  });

  it("encodes a state's Services over several turns, then the response is the same bytes", async () => {
    const state = syntheticLocalState({ services: 100, endpointsPerService: 3 });
    const budget = new TurnBudget(0);
    await prepareLocalState(state, budget);
    expect(budget.yields).toBeGreaterThanOrEqual(100 / 16 - 1);
    const fresh = syntheticLocalState({ services: 100, endpointsPerService: 3 }); // other objects: nothing cached
    expect(encodeLocalStateResponse(delivery(state))).toEqual(encodeLocalStateResponse(delivery(fresh)));
  });

  it('rejects an endpoint index out of range and truncated messages', () => {
    const buf = encodeLocalStateResponse(delivery(aRichLocalState()));
    const res = decodeResponse(buf);
    if (res.type !== 'state') throw new Error('expected a state');
    expect(() => decodeLocalState(buf, res.start, res.end - 3)).toThrow(/malformed/);
    const WatchResponse = loadProto('kpng/localnet/v1/localnet.proto').lookupType('kpng.localnet.v1.WatchResponse');
    const obj = WatchResponse.toObject(WatchResponse.decode(buf), toObjectOptions);
    obj['state'].services[1].ports[0].endpoints[0].cluster = [0, 9];
    const bad = Buffer.from(WatchResponse.encode(WatchResponse.fromObject(obj)).finish());
    const badRes = decodeResponse(bad);
    if (badRes.type !== 'state') throw new Error('expected a state');
    expect(() => decodeLocalState(bad, badRes.start, badRes.end)).toThrow(/index 9 out of range/);
  });
});
