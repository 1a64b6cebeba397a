#!/usr/bin/env node
// The VM lane of `npm test` (see test.mjs): runs the VM suites (`*vm.test.ts`) of the package folders
// given as arguments, one package after another, and exits non-zero if any run failed. test.mjs
// starts it as a child process beside the passes, its output going to a log file.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The VM suites' file names (the glob test.mjs excludes from Nx and from the second pass). */
export const VM_SUITES = '**/*vm.test.ts';
/** @param {string} name */
const isVmSuite = (name) => name.endsWith('vm.test.ts');

/**
 * The VM suites of one package: its `*vm.test.ts` files under src/ and test/, relative to it.
 * @param {string} dir
 * @returns {string[]}
 */
export function vmSuites(dir) {
  /** @type {string[]} */
  const found = [];
  /** @param {string} d */
  const walk = (d) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (isVmSuite(e.name)) found.push(join(d, e.name).slice(dir.length + 1));
    }
  };
  walk(join(dir, 'src'));
  walk(join(dir, 'test'));
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // The workspace's vitest, run by this node in each package folder (npx would pick its own folder).
  const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
  let status = 0;
  for (const dir of process.argv.slice(2)) {
    console.log(`\n=== VM lane: ${dir}`);
    const r = spawnSync(process.execPath, [vitest, 'run', ...vmSuites(dir)], { cwd: dir, stdio: 'inherit' });
    if (r.error) console.error(`VM lane: ${r.error.message}`);
    status ||= r.status ?? 1;
  }
  process.exit(status);
}
