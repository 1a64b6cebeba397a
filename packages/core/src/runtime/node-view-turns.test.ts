import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { serviceKey, sliceKey, type ModelEvent, type NodeName } from '../model/types.js';
import { computeNodeLocalState } from '../nodeview/node-viewer.js';
import { aService, aSlice, readyOn } from '../nodeview/testing-fixtures.js';
import type { NodeLocalState, StateChanges } from '../nodeview/types.js';
import { NodeView } from './node-view.js';

/**
 * A recompute of every Service (the first state at 10,000 Services takes ~0.3 s) must not hold the
 * event loop: the core computes it a budget per turn. Counted in turns, never timed: a budget of 0
 * makes it yield after every 16 Services whatever the machine's speed.
 */
const NODE = 'node-a' as NodeName;

const svc = (i: number): ModelEvent => ({
  kind: 'Service',
  op: 'upsert',
  key: serviceKey('default', `svc-${i}`),
  object: aService({ name: `svc-${i}`, clusterIPs: [`198.19.${i >> 8}.${i & 255}`] }),
});
const slice = (i: number, pod: string, triggerTime?: number): ModelEvent => ({
  kind: 'EndpointSlice',
  op: 'upsert',
  key: sliceKey('default', `svc-${i}-a`),
  object: aSlice({ service: `svc-${i}`, name: `svc-${i}-a`, endpoints: [readyOn('node-b', pod)] }),
  ...(triggerTime !== undefined ? { triggerTime } : {}),
});

function loaded(count: number, options: { schedule?: (fn: () => void) => void } = {}) {
  const core = new NodeView({ nodeName: NODE, turnBudgetMs: 0, ...options });
  const seen: { state: NodeLocalState; changes: StateChanges }[] = [];
  core.addLocalConsumer({ publish: (state, changes) => seen.push({ state, changes }) });
  const events: ModelEvent[] = [];
  for (let i = 0; i < count; i++) events.push(svc(i), slice(i, `198.18.${i >> 8}.${i & 255}`));
  core.model.apply(events);
  core.model.synced('Service');
  core.model.synced('EndpointSlice');
  return { core, seen };
}

describe('NodeView, a recompute of every Service', () => {
  it('runs over many turns; changes that arrive meanwhile are in the state published after it', () => {
    const queued: Array<() => void> = [];
    const { core, seen } = loaded(200, { schedule: (fn) => void queued.push(fn) });
    core.model.synced('Node');
    expect(seen).toHaveLength(0);
    expect(core.state).toBeUndefined();
    expect(queued).toHaveLength(1);

    // svc-0 was computed in the first slice: its change must not be lost; svc-150 goes, svc-300 comes.
    const later = Date.now() + 60_000;
    core.model.apply([
      slice(0, '198.18.200.1', later),
      { kind: 'Service', op: 'delete', key: serviceKey('default', 'svc-150') },
      svc(300),
      slice(300, '198.18.200.2'),
    ]);
    expect(seen).toHaveLength(0);
    let turns = 0;
    while (queued.length > 0) {
      queued.shift()!();
      turns++;
    }

    expect(turns).toBeGreaterThan(10);
    expect(seen[0]!.changes.updatedServices).toBeUndefined(); // the first state is full
    const last = seen.at(-1)!;
    expect(last.state).toEqual(computeNodeLocalState(core.model, NODE));
    expect(core.state).toBe(last.state);
    expect(last.state.services.map((s) => s.key)).toContain('default/svc-300');
    expect(last.state.services.map((s) => s.key)).not.toContain('default/svc-150');
    const triggered = seen.find((s) => s.changes.triggerTimes.has(serviceKey('default', 'svc-0')));
    expect(triggered?.changes.triggerTimes.get(serviceKey('default', 'svc-0'))).toEqual([later]);
  });

  it('lets an HTTP request sent when the sources sync be answered before the first state is published', async () => {
    const health = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => health.listen(0, '127.0.0.1', resolve));
    try {
      const { core, seen } = loaded(3000);
      const url = `http://127.0.0.1:${(health.address() as AddressInfo).port}/healthz`;
      let publishedWhenAnswered: number | undefined;
      const answered = new Promise<void>((resolve, reject) =>
        get(url, (res) => {
          res.resume();
          res.on('end', () => {
            publishedWhenAnswered = seen.length;
            resolve();
          });
        }).on('error', reject),
      );
      core.model.synced('Node');
      expect(seen).toHaveLength(0);
      await answered;
      const deadline = Date.now() + 60_000;
      while (seen.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));

      expect(publishedWhenAnswered).toBe(0);
      expect(seen).toHaveLength(1);
      expect(seen[0]!.state.services).toHaveLength(3000);
    } finally {
      await new Promise<void>((resolve) => health.close(() => resolve()));
    }
  });
});
