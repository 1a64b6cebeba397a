#!/usr/bin/env node
// The side lanes of `npm test` (see test.mjs): `vm-lane.mjs [--lane=vm|images] DIR...` runs one
// lane's suites of the package folders given, one package after another, and exits non-zero if any
// run failed. test.mjs starts each lane as a child process beside the passes, its output going to
// a log file.
//   vm (the default): the suites that boot the lab's kernel VM (`*vm.test.ts`), one emulated CPU.
//   images: tools/release's image suites (`src/oci/*.e2e.test.ts`: root filesystems from apt, images
//     built with buildah and run; `src/npm/pack-smoke.test.ts`: the packed tarballs installed in an
//     empty project), which wait on the network, npm and the disk more than on the CPU.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The VM suites' file names (the glob test.mjs excludes from Nx and from the second pass). */
export const VM_SUITES = '**/*vm.test.ts';
/** The image suites' paths (globs test.mjs excludes from Nx; tools/release is not in the second pass). */
export const IMAGE_SUITES = ['**/src/oci/*.e2e.test.ts', '**/src/npm/pack-smoke.test.ts'];

/** Each lane: which files of a package are its suites (path relative to the package) and its report file. */
export const LANES = {
  vm: { report: '.vitest-report.vm.json', isSuite: (/** @type {string} */ rel) => rel.endsWith('vm.test.ts') },
  images: {
    report: '.vitest-report.images.json',
    isSuite: (/** @type {string} */ rel) =>
      /^src\/oci\/[^/]+\.e2e\.test\.ts$/.test(rel) || rel === 'src/npm/pack-smoke.test.ts',
  },
};

/**
 * One lane's suites of one package: its matching files under src/ and test/, relative to it.
 * @param {string} dir
 * @param {keyof typeof LANES} lane
 * @returns {string[]}
 */
export function laneSuites(dir, lane) {
  /** @type {string[]} */
  const found = [];
  /** @param {string} d */
  const walk = (d) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, e.name);
      if (e.isDirectory()) walk(path);
      else if (LANES[lane].isSuite(path.slice(dir.length + 1))) found.push(path.slice(dir.length + 1));
    }
  };
  walk(join(dir, 'src'));
  walk(join(dir, 'test'));
  return found.sort();
}

/**
 * The VM suites of one package: its `*vm.test.ts` files under src/ and test/, relative to it.
 * @param {string} dir
 * @returns {string[]}
 */
export const vmSuites = (dir) => laneSuites(dir, 'vm');

if (import.meta.url === `file://${process.argv[1]}`) {
  const flag = process.argv.slice(2).find((a) => a.startsWith('--lane='));
  const lane = /** @type {keyof typeof LANES} */ (flag?.slice('--lane='.length) ?? 'vm');
  if (!(lane in LANES)) {
    console.error(`unknown lane ${lane} (${Object.keys(LANES).join(', ')})`);
    process.exit(2);
  }
  // The workspace's vitest, run by this node in each package folder (npx would pick its own folder).
  const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
  let status = 0;
  for (const dir of process.argv.slice(2).filter((a) => a !== flag)) {
    console.log(`\n=== ${lane === 'vm' ? 'VM' : lane} lane: ${dir}`);
    const suites = laneSuites(dir, lane);
    if (suites.length === 0) {
      // `vitest run` without a filter would run the whole package.
      console.error(`${lane} lane: ${dir} has no ${lane} suites`);
      status = 1;
      continue;
    }
    const r = spawnSync(process.execPath, [vitest, 'run', ...suites], {
      cwd: dir,
      env: { ...process.env, KPNG_VITEST_REPORT: LANES[lane].report },
      stdio: 'inherit',
    });
    if (r.error) console.error(`${lane} lane: ${r.error.message}`);
    status ||= r.status ?? 1;
  }
  process.exit(status);
}
