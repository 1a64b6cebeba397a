import { register } from 'prom-client';
import { describe, expect, it } from 'vitest';
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

  it('is exposed in the default registry as a counter', async () => {
    invalidObjectsTotal.inc({ kind: 'EndpointSlice' });
    const text = await register.metrics();
    expect(text).toContain(`# TYPE ${INVALID_OBJECTS_METRIC} counter`);
    expect(text).toMatch(new RegExp(`${INVALID_OBJECTS_METRIC}\\{kind="EndpointSlice"\\} [1-9]`));
  });
});
