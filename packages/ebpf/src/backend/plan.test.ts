import { TurnBudget } from '@kpng/kit';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FakeKernel } from '../../test/support/fake-kernel.js';
import { endpointKey, endpointValue } from '../maps/layout.js';
import { createEbpfMetrics } from './metrics.js';
import { applyPlan, emptyEntries, emptyPlan } from './plan.js';

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
