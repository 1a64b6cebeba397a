#!/usr/bin/env node
// `npm start`: build the workspace, then run `kpng` (packages/core/dist/cli/main.js) with the flags
// given after `--`. For a local try-out it serves the stream on /tmp/kpng/kpng.sock and health on
// loopback unless those flags are given; everything else is kpng's own default, including the
// embedded example cluster when no cluster is configured.
import { spawnSync } from 'node:child_process';

const root = new URL('../..', import.meta.url).pathname;
const env = { ...process.env, NX_NO_CLOUD: 'true', NX_DAEMON: 'false', NX_TUI: 'false' };
const args = process.argv.slice(2);

const build = spawnSync('npx', ['nx', 'run-many', '-t', 'build', '--outputStyle=static', '--projects=@kpng/core'], {
  cwd: root,
  env,
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (build.status !== 0) {
  console.error('build failed: run `npx nx run-many -t build` to see why');
  process.exit(build.status ?? 1);
}

const has = (flag) => args.some((a) => a === flag || a.startsWith(flag + '='));
const defaults = [
  ...(has('--listen') ? [] : ['--listen', 'unix:///tmp/kpng/kpng.sock']),
  ...(has('--healthz-bind-address') ? [] : ['--healthz-bind-address', '127.0.0.1:10256']),
];
const run = spawnSync(process.execPath, [`${root}packages/core/dist/cli/main.js`, ...defaults, ...args], {
  cwd: root,
  env: process.env,
  stdio: 'inherit',
});
process.exit(run.status ?? (run.signal ? 0 : 1));
