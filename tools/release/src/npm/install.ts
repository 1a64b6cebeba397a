import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

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
  return runCommand('npm', installArgs(project, tarballs, manifest), project, INSTALL_TIMEOUT_MS);
}

/** `installTarballs` without blocking: image builds run several installs while root filesystems are made. */
export async function installTarballsAsync(
  project: string,
  tarballs: readonly string[],
  manifest: object,
  platform?: InstallPlatform,
): Promise<CommandResult> {
  const args = installArgs(project, tarballs, manifest);
  // Another platform's tree (the Windows image, installed on Linux): npm picks that platform's
  // optional native packages (koffi's win32-x64 build) instead of this machine's.
  if (platform) args.splice(1, 0, `--os=${platform.os}`, `--cpu=${platform.cpu}`);
  try {
    const r = await promisify(execFile)('npm', args, {
      cwd: project,
      timeout: INSTALL_TIMEOUT_MS,
      env: standaloneEnv(),
      maxBuffer: 64 * 1024 * 1024,
    });
    return { status: 0, output: `${r.stdout}${r.stderr}` };
  } catch (e) {
    const err = e as { code?: number | string; stdout?: string; stderr?: string; message: string };
    return {
      status: typeof err.code === 'number' ? err.code : null,
      output: `${err.stdout ?? ''}${err.stderr ?? ''}${err.message}`,
    };
  }
}

export interface InstallPlatform {
  readonly os: string;
  readonly cpu: string;
}

const INSTALL_TIMEOUT_MS = 300_000;

function installArgs(project: string, tarballs: readonly string[], manifest: object): string[] {
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify(manifest, null, 2));
  return ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...tarballs];
}

function standaloneEnv(): NodeJS.ProcessEnv {
  return { ...process.env, NODE_OPTIONS: '', NODE_NAME: 'smoke' };
}

/** Runs a command to completion with the test runner's NODE_OPTIONS removed: installed packages must stand alone. */
export function runCommand(cmd: string, args: readonly string[], cwd: string, timeout: number): CommandResult {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout, env: standaloneEnv() });
  return { status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}
