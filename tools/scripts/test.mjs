#!/usr/bin/env node
// `npm test`: runs every package's vitest suite through Nx, then prints the workspace total as the
// last line: `N passed, M failed, K skipped`. Exits non-zero when any test failed or any suite
// could not run. Extra arguments are passed to `nx run-many` (e.g. `--projects=@kpng/core`).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const env = { ...process.env, NX_NO_CLOUD: 'true', NX_DAEMON: 'false', NX_TUI: 'false', FORCE_COLOR: '0' };
const projectDirs = ['packages', 'tools']
  .flatMap((d) => (existsSync(join(root, d)) ? readdirSync(join(root, d)).map((p) => join(root, d, p)) : []))
  .filter((p) => existsSync(join(p, 'vitest.config.ts')));

for (const dir of projectDirs) rmSync(join(dir, '.vitest-report.json'), { force: true });

const nx = spawnSync(
  'npx',
  ['nx', 'run-many', '-t', 'test', '--outputStyle=stream', '--parallel=1', ...process.argv.slice(2)],
  { cwd: root, env, stdio: 'inherit' },
);

let passed = 0,
  failed = 0,
  skipped = 0;
const missing = [];
for (const dir of projectDirs) {
  const report = join(dir, '.vitest-report.json');
  if (!existsSync(report)) {
    missing.push(dir.slice(root.length));
    continue;
  }
  const r = JSON.parse(readFileSync(report, 'utf8'));
  passed += r.numPassedTests ?? 0;
  failed += r.numFailedTests ?? 0;
  skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  // A suite that failed to load (syntax error, import failure) has no tests but failed.
  failed += (r.testResults ?? []).filter(
    (f) => f.status === 'failed' && (f.assertionResults ?? []).length === 0,
  ).length;
}
const filtered = process.argv.slice(2).some((a) => a.startsWith('--projects') || a.startsWith('-p'));
if (missing.length && !filtered) {
  console.error(`no test report from: ${missing.join(', ')}`);
  failed += missing.length;
}
if (nx.status !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || nx.status !== 0 ? 1 : 0);
