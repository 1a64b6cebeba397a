import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is tools/release/{src,dist}/workspace.*). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export const DEPLOY_DIR = join(REPO_ROOT, 'deploy');

/** True in CI (`.ci/run` exports CI=true): missing build output is then a failure, not a skip. */
export function inCi(env: NodeJS.ProcessEnv = process.env): boolean {
  return env['CI'] === 'true' || env['CI'] === '1';
}

export interface PackageManifest {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean;
  readonly bin?: string | Record<string, string>;
  readonly files?: readonly string[];
  readonly dependencies?: Record<string, string>;
  readonly engines?: Readonly<Record<string, string>>;
}

export interface WorkspacePackage {
  readonly dir: string;
  readonly manifest: PackageManifest;
}

/** The publishable packages: every `packages/*` with a package.json that is not private. */
export function publishablePackages(root: string = REPO_ROOT): WorkspacePackage[] {
  const base = join(root, 'packages');
  return readdirSync(base, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(base, d.name, 'package.json')))
    .map((d) => ({ dir: join(base, d.name), manifest: readManifest(join(base, d.name)) }))
    .filter((p) => !p.manifest.private)
    .sort((a, b) => a.manifest.name.localeCompare(b.manifest.name));
}

export function readManifest(dir: string): PackageManifest {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageManifest;
}

/** `bin` normalised to a map (a string `bin` is named after the unscoped package name). */
export function binMap(manifest: PackageManifest): Record<string, string> {
  if (!manifest.bin) return {};
  if (typeof manifest.bin === 'string') return { [manifest.name.replace(/^@[^/]+\//, '')]: manifest.bin };
  return { ...manifest.bin };
}

/** Package-relative path without a leading `./`. */
export function normalisePath(p: string): string {
  return p.replace(/^\.\//, '');
}
