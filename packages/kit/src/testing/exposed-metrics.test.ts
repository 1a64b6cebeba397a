import { describe, expect, it } from 'vitest';
import { exposedMetrics } from './exposed-metrics.js';

describe('exposedMetrics', () => {
  it('lists each metric by name: type, the label names recorded, help, a histogram bounds once each', async () => {
    const registry = {
      getMetricsAsJSON: async () => [
        {
          name: 'b_seconds',
          help: 'B.',
          type: 'histogram',
          values: [
            { labels: { le: 0.5, family: 'IPv4' } },
            { labels: { le: '+Inf', family: 'IPv4' } },
            { labels: { le: 0.5, family: 'IPv6' } },
            { labels: { family: 'IPv4' } },
          ],
        },
        { name: 'a_total', help: 'A.', type: 'counter', values: [{ labels: { z: 1, y: 2 } }, { labels: { x: 3 } }] },
        { name: 'c', help: 'C.', type: 'gauge', values: [] },
      ],
    };
    expect(await exposedMetrics(registry)).toEqual([
      'counter a_total{x,y,z} A.',
      'histogram b_seconds{family} B. le=0.5,+Inf',
      'gauge c{} C.',
    ]);
  });
});
