import { describe, expect, it } from 'vitest';
import type { ChangeSet } from './change-set.js';
import { GlobalModel } from './global-model.js';
import { aPort, aService } from '../nodeview/testing-fixtures.js';
import {
  serviceKey,
  sliceKey,
  type EndpointSliceModel,
  type ModelEvent,
  type NodeName,
  type ServiceModel,
} from './types.js';

const START = 1_000_000;

function svc(name: string, patch: Partial<ServiceModel> = {}): ServiceModel {
  return aService({ name, clusterIPs: ['198.19.0.10'], ports: [aPort({ name: 'http' })], ...patch });
}

function slice(name: string, service: string, ips: string[]): EndpointSliceModel {
  return {
    namespace: 'default',
    name,
    serviceName: service,
    addressType: 'IPv4',
    ports: [{ name: 'http', protocol: 'TCP', port: 8080 }],
    endpoints: ips.map((address) => ({ address, ready: true, serving: true, terminating: false })),
  };
}

const upSvc = (s: ServiceModel): ModelEvent => ({
  kind: 'Service',
  op: 'upsert',
  key: serviceKey(s.namespace, s.name),
  object: s,
});
const upSlice = (s: EndpointSliceModel, triggerTime?: number): ModelEvent => ({
  kind: 'EndpointSlice',
  op: 'upsert',
  key: sliceKey(s.namespace, s.name),
  object: s,
  ...(triggerTime !== undefined ? { triggerTime } : {}),
});

function syncedModel() {
  const m = new GlobalModel(START);
  const seen: ChangeSet[] = [];
  m.onChange((c) => seen.push(c));
  m.synced('Service');
  m.synced('EndpointSlice');
  m.synced('Node');
  seen.length = 0;
  return { m, seen };
}

describe('GlobalModel', () => {
  it('serves nothing until every kind has synced, then announces the initial state once', () => {
    const m = new GlobalModel(START);
    const seen: ChangeSet[] = [];
    m.onChange((c) => seen.push(c));
    m.apply([upSvc(svc('a'))]);
    m.synced('Service');
    m.synced('EndpointSlice');
    expect(m.allSynced).toBe(false);
    expect(seen).toHaveLength(0);
    m.synced('Node');
    expect(m.allSynced).toBe(true);
    expect(seen).toHaveLength(1);
    expect(m.service(serviceKey('default', 'a'))?.name).toBe('a');
  });

  it('does not bump the revision for content-identical updates (resync, reordered fields)', () => {
    const { m, seen } = syncedModel();
    m.apply([upSvc(svc('a'))]);
    const rev = m.revision;
    const reordered = Object.fromEntries(Object.entries(svc('a')).reverse()) as unknown as ServiceModel;
    m.apply([upSvc(svc('a')), upSvc(reordered)]);
    expect(m.revision).toBe(rev);
    expect(seen).toHaveLength(1);
  });

  it('reports the Service of a changed slice, and moves slices between Services on label change', () => {
    const { m, seen } = syncedModel();
    m.apply([upSvc(svc('a')), upSvc(svc('b')), upSlice(slice('s1', 'a', ['198.18.0.1']))]);
    expect([...m.slicesOf(serviceKey('default', 'a'))]).toHaveLength(1);
    seen.length = 0;
    m.apply([upSlice(slice('s1', 'b', ['198.18.0.1']))]);
    expect([...seen[0]!.services].sort()).toEqual(['default/a', 'default/b']);
    expect([...m.slicesOf(serviceKey('default', 'a'))]).toHaveLength(0);
    expect([...m.slicesOf(serviceKey('default', 'b'))]).toHaveLength(1);
  });

  it('keeps trigger times newer than its start, per Service, and drops them when a slice is deleted', () => {
    const { m, seen } = syncedModel();
    m.apply([
      upSlice(slice('s1', 'a', ['198.18.0.1']), START - 5),
      upSlice(slice('s2', 'b', ['198.18.0.2']), START + 5),
    ]);
    expect(seen[0]!.triggerTimes.get(serviceKey('default', 'a'))).toBeUndefined();
    expect(seen[0]!.triggerTimes.get(serviceKey('default', 'b'))).toEqual([START + 5]);
    m.apply([
      upSlice(slice('s2', 'b', ['198.18.0.3']), START + 9),
      { kind: 'EndpointSlice', op: 'delete', key: sliceKey('default', 's2') },
    ]);
    expect(seen[1]!.services.has(serviceKey('default', 'b'))).toBe(true);
    expect(seen[1]!.triggerTimes.size).toBe(0);
  });

  it('records no trigger time for a slice update that changes nothing', () => {
    const { m, seen } = syncedModel();
    m.apply([upSlice(slice('s1', 'a', ['198.18.0.1']), START + 1)]);
    m.apply([upSlice(slice('s1', 'a', ['198.18.0.1']), START + 2)]);
    expect(seen).toHaveLength(1);
  });

  it('ignores deletes of unknown objects and reports node changes separately', () => {
    const { m, seen } = syncedModel();
    m.apply([{ kind: 'Service', op: 'delete', key: serviceKey('default', 'ghost') }]);
    expect(seen).toHaveLength(0);
    const node = { name: 'n1', labels: {}, podCIDRs: [], addresses: ['198.18.255.1'], eligible: true };
    m.apply([{ kind: 'Node', op: 'upsert', key: 'n1' as NodeName, object: node }]);
    expect([...seen[0]!.nodes]).toEqual(['n1']);
    expect(seen[0]!.services.size).toBe(0);
  });

  it('replaceAll deletes what the new complete list no longer holds', () => {
    const { m } = syncedModel();
    m.apply([upSvc(svc('a')), upSvc(svc('b'))]);
    m.replaceAll('Service', [upSvc(svc('b'))]);
    expect([...m.serviceKeys()]).toEqual(['default/b']);
  });

  it('counts received events separately from committed revisions', () => {
    const events: number[] = [];
    const revisions: number[] = [];
    const m = new GlobalModel(START, {
      eventsReceived: (_k, n) => events.push(n),
      revisionCommitted: (r) => revisions.push(r),
      objectCount: () => {},
    });
    for (const k of ['Service', 'EndpointSlice', 'Node'] as const) m.synced(k);
    m.apply([upSvc(svc('a'))]);
    m.apply([upSvc(svc('a'))]);
    m.apply([upSvc(svc('a'))]);
    expect(events.reduce((a, b) => a + b, 0)).toBe(3);
    expect(revisions).toEqual([1, 2]);
  });
});

describe('GlobalModel: ServiceCIDRs', () => {
  const upCIDR = (name: string, cidrs: string[]): ModelEvent => ({
    kind: 'ServiceCIDR',
    op: 'upsert',
    key: name,
    object: { name, cidrs },
  });

  it('keeps the sorted union of every ServiceCIDR; only a different union is a change', () => {
    const { m, seen } = syncedModel();
    m.apply([upCIDR('kubernetes', ['198.19.0.0/16', '2001:db8:5e::/64'])]);
    expect(m.serviceCIDRs()).toEqual(['198.19.0.0/16', '2001:db8:5e::/64']);
    expect(seen.at(-1)?.serviceCIDRs).toBe(true);
    const revision = m.revision;
    m.apply([upCIDR('extra', ['198.19.0.0/16'])]); // a second object with a range already in the union
    expect(m.revision).toBe(revision);
    m.apply([upCIDR('more', ['203.0.113.0/24'])]);
    expect(m.serviceCIDRs()).toEqual(['198.19.0.0/16', '2001:db8:5e::/64', '203.0.113.0/24']);
    m.apply([upCIDR('nested', ['198.19.4.0/24'])]); // inside 198.19.0.0/16: adds nothing (interval sets refuse overlaps)
    expect(m.serviceCIDRs()).toEqual(['198.19.0.0/16', '2001:db8:5e::/64', '203.0.113.0/24']);
    m.apply([{ kind: 'ServiceCIDR', op: 'delete', key: 'kubernetes' }]);
    expect(m.serviceCIDRs()).toEqual(['198.19.0.0/16', '203.0.113.0/24']);
    expect(seen.at(-1)?.services.size).toBe(0);
  });

  it('does not wait for ServiceCIDRs to serve (optional, as upstream does not wait for them)', () => {
    const m = new GlobalModel(START);
    for (const kind of ['Service', 'EndpointSlice', 'Node'] as const) m.synced(kind);
    expect(m.allSynced).toBe(true);
  });
});
