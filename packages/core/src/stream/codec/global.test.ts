import { describe, expect, it } from 'vitest';
import type { GlobalSnapshot } from '../../model/global-model.js';
import type { ServiceKey } from '../../model/types.js';
import type { StateChanges } from '../../nodeview/types.js';
import { decodeResponse } from './envelope.js';
import { TurnBudget } from '@kpng/kit';
import { decodeGlobalState, decodeGlobalStateInTurns, GlobalDecodeCache } from './global-decode.js';
import { encodeGlobalStateResponse } from './global-encode.js';
import type { Delivery } from '../hub.js';
import { loadProto, toObjectOptions } from '../testdata/proto-reflection.js';
import { aRichGlobalSnapshot } from '../testing-fixtures.js';

const changes: StateChanges = {
  updatedServices: new Set(['shop/front' as ServiceKey]),
  triggerTimes: new Map([['shop/front' as ServiceKey, [1_700_000_000_000]]]),
  nodeChanged: true,
};

function delivery(state: GlobalSnapshot): Delivery<GlobalSnapshot> {
  return { state, instanceId: 'global-1', revision: 9, changes, full: false };
}

function roundTrip(d: Delivery<GlobalSnapshot>, cache?: GlobalDecodeCache): Delivery<GlobalSnapshot> {
  const buf = encodeGlobalStateResponse(d);
  const res = decodeResponse(buf);
  if (res.type !== 'state') throw new Error(`expected a state, got ${res.type}`);
  return decodeGlobalState(buf, res.start, res.end, cache);
}

describe('global state codec', () => {
  it('decodes a snapshot over several turns to the same result, reusing cached objects', async () => {
    const d = delivery(aRichGlobalSnapshot());
    const buf = encodeGlobalStateResponse(d);
    const res = decodeResponse(buf);
    if (res.type !== 'state') throw new Error('expected a state');
    const cache = new GlobalDecodeCache();
    const first = decodeGlobalState(buf, res.start, res.end, cache);
    // A spent budget: a turn after every 16 objects (the rich snapshot has fewer: a turn at most).
    const again = await decodeGlobalStateInTurns(buf, res.start, res.end, cache, new TurnBudget(0));
    expect(again).toEqual(d);
    expect(again.state.services[0]).toBe(first.state.services[0]);
    expect(again.state.endpointSlices[0]).toBe(first.state.endpointSlices[0]);
  });

  it('round-trips a snapshot with every field populated', () => {
    const d = delivery(aRichGlobalSnapshot());
    expect(roundTrip(d)).toEqual(d);
  });

  it('keeps absent and empty hints apart, and numeric vs named target ports', () => {
    const back = roundTrip(delivery(aRichGlobalSnapshot())).state;
    const [first, second, third] = back.endpointSlices[0]!.endpoints;
    expect(first!.zoneHints).toEqual(['zone-a']);
    expect(second!.zoneHints).toEqual([]);
    expect(third).not.toHaveProperty('zoneHints');
    expect(back.services[0]!.ports.map((p) => p.targetPort)).toEqual(['https', 5353, 0]);
  });

  it('agrees with the published .proto (protobufjs reflection both ways)', () => {
    const Response = loadProto('kpng/global/v1/global.proto').lookupType('kpng.global.v1.GlobalWatchResponse');
    const d = delivery(aRichGlobalSnapshot());
    const obj = Response.toObject(Response.decode(encodeGlobalStateResponse(d)), toObjectOptions);
    expect(obj['message']).toBe('state');
    const state = obj['state'];
    expect(state).toMatchObject({ instanceId: 'global-1', revision: 9, modelRevision: 42 });
    expect(state.services[0]).toMatchObject({
      namespace: 'shop',
      externalTrafficPolicy: 'TRAFFIC_POLICY_LOCAL',
      trafficDistribution: 'PreferClose',
      clientIpAffinity: { timeoutSeconds: 60 },
      preserveDestination: true,
    });
    expect(state.services[1]).not.toHaveProperty('preserveDestination');
    expect(state.services[0].ports[0]).toMatchObject({ targetPortName: 'https', targetPort: 'targetPortName' });
    expect(state.services[0].ports[2]).toMatchObject({ targetPortNumber: 0, targetPort: 'targetPortNumber' });
    expect(state.endpointSlices[0].endpoints[0]).toMatchObject({
      zoneHints: { names: ['zone-a'] },
      nodeHints: { names: ['node-a'] },
    });
    expect(state.endpointSlices[0].addressType).toBe('IP_FAMILY_IPV6');

    const reencoded = Buffer.from(Response.encode(Response.fromObject(obj)).finish());
    const res = decodeResponse(reencoded);
    if (res.type !== 'state') throw new Error('expected a state');
    expect(decodeGlobalState(reencoded, res.start, res.end)).toEqual(d);
  });

  it('reuses unchanged objects and forgets vanished ones', () => {
    const cache = new GlobalDecodeCache();
    const snap = aRichGlobalSnapshot();
    const a = roundTrip(delivery(snap), cache).state;
    const changed: GlobalSnapshot = {
      ...snap,
      services: [{ ...snap.services[0]!, healthCheckNodePort: 32001 }, snap.services[1]!],
      nodes: [snap.nodes[0]!],
    };
    const b = roundTrip(delivery(changed), cache).state;
    expect(b).toEqual(changed);
    expect(b.services[0]).not.toBe(a.services[0]);
    expect(b.services[1]).toBe(a.services[1]);
    expect(b.endpointSlices[0]).toBe(a.endpointSlices[0]);
    expect(b.nodes[0]).toBe(a.nodes[0]);
    expect(cache.nodes.size).toBe(1);
  });
});
