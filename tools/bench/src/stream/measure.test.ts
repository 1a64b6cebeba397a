import { describe, expect, it } from 'vitest';
import { measureStream } from './measure.js';

describe('measureStream', () => {
  it('measures a small state end to end (shape only; timings are for tools/bench)', async () => {
    const m = await measureStream({ services: 20, endpointsPerService: 3, runs: 2 });
    expect(m).toMatchObject({ services: 20, endpoints: 60 });
    expect(m.bytes).toBeGreaterThan(20 * 3 * 10);
    for (const list of [m.coldMs, m.coldCpuMs, m.warmMs, m.jsonReferenceMs]) {
      expect(list).toHaveLength(2);
      for (const ms of list) expect(ms).toBeGreaterThanOrEqual(0);
    }
  });
});
