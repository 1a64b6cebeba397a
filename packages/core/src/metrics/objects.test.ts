import { Registry, register } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createCoreMetrics } from './core-metrics.js';
import { INVALID_OBJECTS_METRIC, invalidObjectsTotal } from './objects.js';

async function countFor(kind: string): Promise<number> {
  const metric = await invalidObjectsTotal.get();
  return metric.values.find((v) => v.labels['kind'] === kind)?.value ?? 0;
}

describe('kpng_invalid_objects_total', () => {
  it('counts per kind', async () => {
    const before = { svc: await countFor('Service'), node: await countFor('Node') };
    invalidObjectsTotal.inc({ kind: 'Service' });
    invalidObjectsTotal.inc({ kind: 'Service' });
    expect(await countFor('Service')).toBe(before.svc + 2);
    expect(await countFor('Node')).toBe(before.node);
  });

  it("is served from the registry a program gives core's metrics, never prom-client's default one", async () => {
    const registry = new Registry();
    createCoreMetrics(registry, { processMetrics: false });
    invalidObjectsTotal.inc({ kind: 'EndpointSlice' });
    const text = await registry.metrics();
    expect(text).toContain(`# TYPE ${INVALID_OBJECTS_METRIC} counter`);
    expect(text).toMatch(new RegExp(`${INVALID_OBJECTS_METRIC}\\{kind="EndpointSlice"\\} [1-9]`));
    expect(await register.metrics()).not.toContain(INVALID_OBJECTS_METRIC);
  });
});
