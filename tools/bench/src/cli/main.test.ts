import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Writable } from '../runner/report.js';
import { main } from './main.js';

const dir = await mkdtemp(join(tmpdir(), 'kpng-bench-main-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
const suite = (name: string, scenarios: string[], body: string): Promise<void> =>
  writeFile(
    join(dir, `${name}.suite.js`),
    `export default { name: '${name}', description: '${name} suite', scenarios: ${JSON.stringify(scenarios)}, async run(ctx) { ${body} } };\n`,
  );
await suite(
  'fine',
  ['s1k'],
  "ctx.reportValue('answer', 42, 'count'); const m = await ctx.measure('noop', () => 0); ctx.reportMeasurement('noop', m); ctx.log(`runs=${ctx.runs} seed=${ctx.seed} opt=${ctx.options.flavour}`);",
);
await suite('throws', ['s1k'], "throw new Error('boom');");
await suite('other', ['s10k'], "ctx.reportValue('never', 1, 'count');");

const capture = (): Writable & { text: string } => {
  const s = { text: '', write: (chunk: string) => (s.text += chunk) };
  return s;
};
async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out = capture();
  const err = capture();
  const code = await main(argv, { out, err, suitesDir: dir });
  return { code, out: out.text, err: err.text };
}
const metrics = (out: string): string[] =>
  out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { metric: string }).metric);

describe('main', () => {
  it('runs the requested suite, passing run counts, seed and extra options', async () => {
    const r = await run(['s1k', '--suite', 'fine', '--runs', '2', '--warmup', '0', '--seed', '3', '--flavour=x']);
    expect(r.code).toBe(0);
    expect(metrics(r.out)).toEqual(['answer', 'noop']);
    expect(r.out.split('\n')[1]).toContain('"n":2');
    expect(r.err).toContain('runs=2 seed=3 opt=x');
    expect(r.err).toMatch(/scenario\s+metric\s+value/);
  });

  it('runs every suite supporting the scenario, reports a failing one and exits 1', async () => {
    const r = await run(['s1k', '--runs', '1']);
    expect(r.code).toBe(1);
    expect(metrics(r.out)).toEqual(['answer', 'noop']);
    expect(r.err).toMatch(/suite throws failed: Error: boom/);
    expect(r.err).not.toContain('never');
  });

  it('refuses a requested suite that does not support the scenario, or does not exist', async () => {
    expect((await run(['s1k', '--suite', 'other'])).err).toMatch(/other does not support s1k/);
    const missing = await run(['s1k', '--suite', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/no suite "nope"/);
  });

  it('exits 2 on bad usage and 0 on --help', async () => {
    expect((await run([])).code).toBe(2);
    expect((await run(['s2k'])).err).toMatch(/unknown scenario "s2k"/);
    expect((await run(['s1k', '--runs', 'x'])).code).toBe(2);
    expect((await run(['s10k-wide'])).err).toMatch(/no suite supports s10k-wide/);
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.err).toMatch(/usage: npm run bench/);
  });

  it('lists scenarios and suites, flagging suites that fail to load', async () => {
    const r = await run(['--list']);
    expect(r.err).toMatch(/s10k-wide\s+1,000 services x 100/);
    expect(r.err).toMatch(/fine\s+fine suite \[s1k\]/);
    expect(r.code).toBe(0);
    await writeFile(join(dir, 'bad.suite.js'), 'export default {};\n');
    const bad = await run(['--list']);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/bad\s+FAILED TO LOAD/);
    await rm(join(dir, 'bad.suite.js'));
  });

  it('writes a scenario file with --write and runs nothing', async () => {
    const path = join(dir, 's1k.json');
    const r = await run(['s1k', '--write', path, '--seed', '2']);
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    const list = JSON.parse(await readFile(path, 'utf8')) as { kind: string; items: unknown[] };
    expect(list.kind).toBe('List');
    expect(list.items.length).toBe(2_100);
  });
});
