import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSuite, suiteNames } from './registry.js';

const dir = await mkdtemp(join(tmpdir(), 'kpng-bench-suites-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
await writeFile(
  join(dir, 'alpha.suite.js'),
  "export default { name: 'alpha', description: 'a', scenarios: ['s1k'], run: async () => {} };\n",
);
await writeFile(
  join(dir, 'misnamed.suite.js'),
  "export default { name: 'other', description: 'a', scenarios: [], run: async () => {} };\n",
);
await writeFile(join(dir, 'broken.suite.js'), 'export default 42;\n');
await writeFile(join(dir, 'alpha.suite.test.js'), '');
await writeFile(join(dir, 'helper.js'), '');

describe('suite registry', () => {
  it('finds suites by file name only', () => {
    expect(suiteNames(dir)).toEqual(['alpha', 'broken', 'misnamed']);
  });

  it('ships the generate suite', async () => {
    expect(suiteNames()).toContain('generate');
    const suite = await loadSuite('generate');
    expect(suite.scenarios).toEqual(['s1k', 's10k', 's10k-wide', 'churn', 's50k']);
  });

  it('loads a suite and checks its shape and name', async () => {
    expect((await loadSuite('alpha', dir)).scenarios).toEqual(['s1k']);
    await expect(loadSuite('broken', dir)).rejects.toThrow(/must default-export a suite/);
    await expect(loadSuite('misnamed', dir)).rejects.toThrow(/must be named "misnamed"/);
    await expect(loadSuite('nope', dir)).rejects.toThrow(/known: alpha, broken, misnamed/);
  });
});
