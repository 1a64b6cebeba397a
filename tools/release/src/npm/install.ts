import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processExecerWith, runSync, withTimeout } from '@kpng/kit';

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
  // No install scripts there: koffi's would find no prebuilt addon for this machine among the other
  // platform's packages and compile one from source (minutes of C++, ~9 MB of a Linux build a
  // Windows node never loads; the Dockerfile's install stage has no compiler at all). koffi loads its
  // win32-x64 package on Windows; protobufjs's postinstall only checks its CLI's dependencies.
  if (platform) args.splice(1, 0, `--os=${platform.os}`, `--cpu=${platform.cpu}`, '--ignore-scripts');
  const npm = withTimeout(processExecerWith({ cwd: project, env: STANDALONE_ENV }), INSTALL_TIMEOUT_MS);
  try {
    const r = await npm.run(['npm', ...args], '');
    return { status: r.exitCode, output: `${r.stdout}${r.stderr}` };
  } catch (e) {
    return { status: null, output: String(e) };
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

/** Added to the environment: the test runner's NODE_OPTIONS removed. */
const STANDALONE_ENV = { NODE_OPTIONS: '', NODE_NAME: 'smoke' };

/** Runs a command to completion with the test runner's NODE_OPTIONS removed: installed packages must stand alone. */
export function runCommand(cmd: string, args: readonly string[], cwd: string, timeout: number): CommandResult {
  try {
    const r = runSync([cmd, ...args], { cwd, timeoutMs: timeout, env: STANDALONE_ENV });
    return { status: r.exitCode, output: `${r.stdout}${r.stderr}` };
  } catch (e) {
    return { status: null, output: String(e) };
  }
}
