import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CommandResult {
  readonly status: number | null;
  readonly output: string;
}

/**
 * The images' install step: `npm install --omit=dev <tarballs>` in `project`, whose package.json
 * is `manifest`. kpng's packages depend on each other by version and are not on a registry, so
 * they are installed together from their tarballs.
 */
export function installTarballs(project: string, tarballs: readonly string[], manifest: object): CommandResult {
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify(manifest, null, 2));
  return runCommand('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...tarballs], project, 300_000);
}

/** Runs a command to completion with the test runner's NODE_OPTIONS removed: installed packages must stand alone. */
export function runCommand(cmd: string, args: readonly string[], cwd: string, timeout: number): CommandResult {
  const env = { ...process.env, NODE_OPTIONS: '', NODE_NAME: 'smoke' };
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout, env });
  return { status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}
