import { describe, expect, it } from 'vitest';
import { serviceKey, type ServiceKey } from '../model/types.js';
import { localServiceEqual } from './equal.js';
import { computeNodeLocalState, NodeViewer } from './node-viewer.js';
import {
  aNode,
  aService,
  aSlice,
  InMemoryModel,
  OTHER_NODE,
  readyOn,
  terminatingOn,
  THIS_NODE,
} from './testing-fixtures.js';
import type { NodeLocalState } from './types.js';

const NONE: ReadonlySet<ServiceKey> = new Set();

/** A model with Services b, a, c (inserted out of order), each with one remote endpoint. */
function threeServices(): { model: InMemoryModel; keys: Record<'a' | 'b' | 'c', ServiceKey> } {
  const model = new InMemoryModel();
  model.setNode(aNode(THIS_NODE, { zone: 'zone-a' }));
  const add = (name: string, index: number): ServiceKey => {
    const key = model.setService(aService({ name, clusterIPs: [`198.19.0.${index}`] }));
    model.setSlice(aSlice({ service: name, endpoints: [readyOn(OTHER_NODE, `198.18.0.${index}`)] }));
    return key;
  };
  const b = add('b', 2);
  const a = add('a', 1);
  const c = add('c', 3);
  return { model, keys: { a, b, c } };
}

const keysOf = (set: ReadonlySet<ServiceKey>): string[] => [...set].sort();

describe('NodeViewer', () => {
  it('first update reports every Service and sorts them by key', () => {
    const { model } = threeServices();
    const { state, updatedServices } = new NodeViewer(THIS_NODE).update(model, NONE, false);
    expect(state.services.map((s) => s.key)).toEqual(['default/a', 'default/b', 'default/c']);
    expect(keysOf(updatedServices)).toEqual(['default/a', 'default/b', 'default/c']);
  });

  it('an endpoint change reports only its Service; the others keep their identity', () => {
    const { model, keys } = threeServices();
    const viewer = new NodeViewer(THIS_NODE);
    const before = viewer.update(model, 'all', true).state;
    model.setSlice(aSlice({ service: 'b', endpoints: [readyOn(OTHER_NODE, '198.18.0.22')] }));
    const { state, updatedServices } = viewer.update(model, new Set([keys.b]), false);
    expect(keysOf(updatedServices)).toEqual(['default/b']);
    expect(state.services[1]!.ports[0]!.endpoints.IPv4!.internal.map((e) => e.ip)).toEqual(['198.18.0.22']);
    expect(state.services[0]).toBe(before.services[0]);
    expect(state.services[2]).toBe(before.services[2]);
    expect(before.services[1]!.ports[0]!.endpoints.IPv4!.internal.map((e) => e.ip)).toEqual(['198.18.0.2']);
  });

  it('a touched Service whose local form did not change is not reported, and the state is reused', () => {
    const { model, keys } = threeServices();
    const viewer = new NodeViewer(THIS_NODE);
    const before = viewer.update(model, 'all', true).state;
    // Hints for another zone only: no filtering, and hints themselves are not part of the view.
    model.setSlice(aSlice({ service: 'a', endpoints: [readyOn(OTHER_NODE, '198.18.0.1', { zoneHints: ['zone-b'] })] }));
    const { state, updatedServices } = viewer.update(model, new Set([keys.a]), false);
    expect(updatedServices.size).toBe(0);
    expect(state).toBe(before);
  });

  it('a change that only the serving list sees is still reported (conntrack cleanup needs it)', () => {
    const { model, keys } = threeServices();
    const viewer = new NodeViewer(THIS_NODE);
    viewer.update(model, 'all', true);
    model.setSlice(aSlice({ name: 'extra', service: 'a', endpoints: [terminatingOn(OTHER_NODE, '198.18.0.99')] }));
    expect(keysOf(viewer.update(model, new Set([keys.a]), false).updatedServices)).toEqual(['default/a']);
  });

  it('a deleted Service is reported and leaves the state', () => {
    const { model, keys } = threeServices();
    const viewer = new NodeViewer(THIS_NODE);
    viewer.update(model, 'all', true);
    model.deleteService(keys.b);
    const { state, updatedServices } = viewer.update(model, new Set([keys.b]), false);
    expect(keysOf(updatedServices)).toEqual(['default/b']);
    expect(state.services.map((s) => s.key)).toEqual(['default/a', 'default/c']);
  });

  it('a Service that becomes headless is removed like a deleted one', () => {
    const { model, keys } = threeServices();
    const viewer = new NodeViewer(THIS_NODE);
    viewer.update(model, 'all', true);
    model.setService(aService({ name: 'c', clusterIPs: ['None'] }));
    const { state, updatedServices } = viewer.update(model, new Set([keys.c]), false);
    expect(keysOf(updatedServices)).toEqual(['default/c']);
    expect(state.services.map((s) => s.key)).toEqual(['default/a', 'default/b']);
  });

  it('a key that is neither in the model nor in the view is not reported', () => {
    const { model } = threeServices();
    const viewer = new NodeViewer(THIS_NODE);
    viewer.update(model, 'all', true);
    expect(viewer.update(model, new Set([serviceKey('default', 'ghost')]), false).updatedServices.size).toBe(0);
  });

  it("'all' with nothing changed reports nothing and returns the same state", () => {
    const { model } = threeServices();
    const viewer = new NodeViewer(THIS_NODE);
    const before = viewer.update(model, 'all', true).state;
    const { state, updatedServices } = viewer.update(model, 'all', true);
    expect(updatedServices.size).toBe(0);
    expect(state).toBe(before);
  });

  it("'all' drops Services that disappeared from the model without being named", () => {
    const { model, keys } = threeServices();
    const viewer = new NodeViewer(THIS_NODE);
    viewer.update(model, 'all', true);
    model.deleteService(keys.a);
    const { state, updatedServices } = viewer.update(model, 'all', false);
    expect(keysOf(updatedServices)).toEqual(['default/a']);
    expect(state.services.map((s) => s.key)).toEqual(['default/b', 'default/c']);
  });

  it('a zone change recomputes every Service, even ones not named as changed', () => {
    const model = new InMemoryModel();
    model.setNode(aNode(THIS_NODE, { zone: 'zone-a' }));
    const key = model.setService(aService());
    model.setSlice(
      aSlice({
        endpoints: [
          readyOn(OTHER_NODE, '198.18.0.1', { zoneHints: ['zone-a'] }),
          readyOn(OTHER_NODE, '198.18.0.2', { zoneHints: ['zone-b'] }),
        ],
      }),
    );
    const viewer = new NodeViewer(THIS_NODE);
    viewer.update(model, 'all', true);
    model.setNode(aNode(THIS_NODE, { zone: 'zone-b' }));
    const { state, updatedServices } = viewer.update(model, NONE, true);
    expect(keysOf(updatedServices)).toEqual([key]);
    expect(state.node.zone).toBe('zone-b');
    expect(state.services[0]!.ports[0]!.endpoints.IPv4!.internal.map((e) => e.ip)).toEqual(['198.18.0.2']);
  });

  it('a node change that Service logic ignores updates the node but reports no Service', () => {
    const { model } = threeServices();
    const viewer = new NodeViewer(THIS_NODE);
    const before = viewer.update(model, 'all', true).state;
    model.setNode(aNode(THIS_NODE, { zone: 'zone-a', eligible: false }));
    const { state, updatedServices } = viewer.update(model, NONE, true);
    expect(updatedServices.size).toBe(0);
    expect(state.node.eligible).toBe(false);
    expect(state.services).toBe(before.services);
  });

  it('an unknown node is proxied by name only: no zone, eligible', () => {
    const model = new InMemoryModel();
    model.setService(aService());
    expect(computeNodeLocalState(model, THIS_NODE).node).toEqual({
      name: THIS_NODE,
      labels: {},
      podCIDRs: [],
      addresses: [],
      eligible: true,
    });
  });

  it('a node with a zone label exposes it as zone', () => {
    const model = new InMemoryModel();
    model.setNode(aNode(THIS_NODE, { zone: 'zone-a', addresses: ['198.18.255.1'] }));
    expect(computeNodeLocalState(model, THIS_NODE).node).toMatchObject({ zone: 'zone-a', addresses: ['198.18.255.1'] });
  });

  it('an update done one Service per step equals the update done at once, and moves the state only when finished', () => {
    const { model, keys } = threeServices();
    const stepped = new NodeViewer(THIS_NODE);
    const atOnce = new NodeViewer(THIS_NODE);
    const oneAtATime = (viewer: NodeViewer, changed: ReadonlySet<ServiceKey> | 'all', nodeChanged: boolean) => {
      const before = viewer.state;
      const run = viewer.begin(model, changed, nodeChanged);
      let steps = 1;
      while (!run.step(() => true)) steps++;
      expect(viewer.state).toBe(before);
      return { steps, ...run.finish() };
    };
    const first = oneAtATime(stepped, 'all', true);
    expect(first.steps).toBe(3);
    expect(first.state).toEqual(atOnce.update(model, 'all', true).state);
    model.setSlice(aSlice({ service: 'b', endpoints: [readyOn(OTHER_NODE, '198.18.0.22')] }));
    model.deleteService(keys.c);
    const next = oneAtATime(stepped, new Set([keys.b, keys.c]), false);
    const expected = atOnce.update(model, new Set([keys.b, keys.c]), false);
    expect(next.steps).toBe(2);
    expect(next.state).toEqual(expected.state);
    expect(keysOf(next.updatedServices)).toEqual(keysOf(expected.updatedServices));
  });

  it('incremental updates always equal a full recomputation (seeded random changes)', () => {
    const random = mulberry32(42);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    const model = new InMemoryModel();
    model.setNode(aNode(THIS_NODE, { zone: 'zone-a' }));
    const names = ['s0', 's1', 's2', 's3', 's4', 's5', 's6', 's7'];
    const viewer = new NodeViewer(THIS_NODE);
    let previous = viewer.update(model, 'all', true).state;
    for (let step = 0; step < 300; step++) {
      const name = pick(names);
      const key = serviceKey('default', name);
      const roll = random();
      let nodeChanged = false;
      if (roll < 0.15) model.deleteService(key);
      else if (roll < 0.35) {
        model.setService(
          aService({
            name,
            clusterIPs: [`198.19.0.${names.indexOf(name)}`],
            type: pick(['ClusterIP', 'NodePort'] as const),
            ports: [{ name: '', protocol: 'TCP', port: 80, nodePort: 30000 + names.indexOf(name), targetPort: 8080 }],
            internalTrafficPolicy: pick(['Cluster', 'Local'] as const),
            externalTrafficPolicy: pick(['Cluster', 'Local'] as const),
          }),
        );
      } else if (roll < 0.9) {
        const endpoints = [0, 1, 2, 3]
          .filter(() => random() < 0.6)
          .map((i) => {
            const node = pick([THIS_NODE, OTHER_NODE]);
            const ip = `198.18.${names.indexOf(name)}.${i}`;
            const zoneHints = random() < 0.5 ? { zoneHints: [pick(['zone-a', 'zone-b'])] } : {};
            return random() < 0.2 ? terminatingOn(node, ip, zoneHints) : readyOn(node, ip, zoneHints);
          });
        model.setSlice(aSlice({ service: name, name: `${name}-${pick(['x', 'y'])}`, endpoints }));
      } else {
        model.setNode(aNode(THIS_NODE, { zone: pick(['zone-a', 'zone-b']) }));
        nodeChanged = true;
      }
      const { state, updatedServices } = viewer.update(model, nodeChanged ? NONE : new Set([key]), nodeChanged);
      expect(state, `step ${step}`).toEqual(computeNodeLocalState(model, THIS_NODE));
      expect(keysOf(updatedServices), `step ${step}`).toEqual(reallyChanged(previous, state));
      previous = state;
    }
  });
});

/** Keys whose LocalService differs between two states, by the equality the viewer uses. */
function reallyChanged(before: NodeLocalState, after: NodeLocalState): string[] {
  const old = new Map(before.services.map((s) => [s.key, s]));
  const now = new Map(after.services.map((s) => [s.key, s]));
  const keys = new Set([...old.keys(), ...now.keys()]);
  return [...keys]
    .filter((k) => {
      const a = old.get(k);
      const b = now.get(k);
      return a === undefined || b === undefined || !localServiceEqual(a, b);
    })
    .sort();
}

/** A tiny seeded PRNG, so the random walk is the same on every run. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
