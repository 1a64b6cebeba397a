import { TurnBudget } from '@kpng/kit';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FakeKernel } from '../../test/support/fake-kernel.js';
import { endpointKey, endpointValue } from '../maps/layout.js';
import { createEbpfMetrics } from './metrics.js';
import { applyPlan, diffInto, emptyEntries, emptyPlan } from './plan.js';

/** A plan writing `n` endpoint elements of lb 1. */
function endpoints(n: number) {
  const upserts = emptyEntries();
  for (let i = 0; i < n; i++)
    upserts.endpoints.set(
      endpointKey(1, i).toString('hex'),
      endpointValue('IPv4', `198.18.${i >> 8}.${i & 255}`, 8080).toString('hex'),
    );
  return emptyPlan(upserts);
}

describe('applyPlan', () => {
  it('writes in batches of at most 4096 while the turn budget lasts', async () => {
    const kernel = new FakeKernel();
    const budget = new TurnBudget(Number.POSITIVE_INFINITY);
    await applyPlan(kernel, endpoints(5000), createEbpfMetrics(new Registry()), budget);
    expect(kernel.journal).toEqual(['endpoints update', 'endpoints update']);
    expect(kernel.maps.endpoints.data.size).toBe(5000);
    expect(budget.yields).toBe(0);
  });

  it("ends a batch when the budget is spent and gives the event loop its turn after that write (the kit's TurnBudget)", async () => {
    const kernel = new FakeKernel();
    const budget = new TurnBudget(0); // spent at every clock reading: every 16th element
    await applyPlan(kernel, endpoints(160), createEbpfMetrics(new Registry()), budget);
    expect(kernel.journal).toEqual(Array(10).fill('endpoints update'));
    expect(kernel.maps.endpoints.data.size).toBe(160);
    expect(budget.yields).toBe(10); // each one a setImmediate turn (the kit's yield)
  });
});

describe('diffInto', () => {
  const entries = (services4: Record<string, string>) => ({
    ...emptyEntries(),
    services4: new Map(Object.entries(services4)),
  });

  it('upserts added and changed keys, deletes applied keys nothing wants, with or without a budget', async () => {
    const from = entries({ a: '01', b: '02', c: '03' });
    const to = entries({ a: '01', b: '22', d: '04' });
    for (const budget of [undefined, new TurnBudget(0)]) {
      const plan = emptyPlan();
      await diffInto(plan, from, to, budget);
      expect([...plan.upserts.services4]).toEqual([
        ['b', '22'],
        ['d', '04'],
      ]);
      expect([...plan.deletes.services4]).toEqual(['c']);
    }
  });

  it("keeps a key one Service's part deletes and another's writes (an address moving between Services)", async () => {
    const plan = emptyPlan();
    // Service 1 gives up address k, then Service 2 takes it: k is written, not deleted.
    await diffInto(plan, entries({ k: '01' }), entries({}));
    expect([...plan.deletes.services4]).toEqual(['k']);
    await diffInto(plan, entries({}), entries({ k: '02' }));
    expect([...plan.upserts.services4]).toEqual([['k', '02']]);
    expect(plan.deletes.services4.size).toBe(0);
    // The other order: written first, then the old owner's delete is left out.
    const other = emptyPlan();
    await diffInto(other, entries({}), entries({ k: '02' }));
    await diffInto(other, entries({ k: '01' }), entries({}));
    expect([...other.upserts.services4]).toEqual([['k', '02']]);
    expect(other.deletes.services4.size).toBe(0);
  });
});
