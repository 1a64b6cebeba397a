import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runSync } from '@kpng/kit';

const script = fileURLToPath(new URL('../../../scripts/bench.mjs', import.meta.url));

/** End to end: `npm run bench` runs the TypeScript sources through the loader hooks, no build. */
describe('tools/scripts/bench.mjs', () => {
  it('runs the generate suite on s1k and prints JSON lines and a table', () => {
    const r = runSync([process.execPath, script, 's1k', '--suite', 'generate', '--runs', '1', '--warmup', '0']);
    expect(r.stderr).toMatch(/scenario\s+metric\s+value\s+unit\s+n\s+p50\s+p99/);
    expect(r.exitCode).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const row of rows)
      expect(Object.keys(row)).toEqual(['scenario', 'metric', 'value', 'unit', 'n', 'p50', 'p99']);
    const byMetric = new Map(rows.map((row) => [row['metric'], row]));
    expect(byMetric.get('generate')).toMatchObject({ scenario: 's1k', unit: 'ms', n: 1 });
    expect(byMetric.get('generate.vs.structured-clone')).toMatchObject({ unit: 'x' });
    expect(byMetric.get('serialize.json.bytes')?.['value']).toBeGreaterThan(1_000_000);
    expect(byMetric.has('serialize.yaml')).toBe(true);
  });

  it('exits 2 with the usage on an unknown scenario', () => {
    const r = runSync([process.execPath, script, 'nope']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/unknown scenario "nope"/);
  });
});
