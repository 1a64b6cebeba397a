import { runSync } from '@kpng/kit';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { binMap, normalisePath, type WorkspacePackage } from '../workspace.js';

export interface PackResult {
  readonly name: string;
  readonly version: string;
  readonly filename: string;
  readonly files: readonly string[];
}

/** `npm pack --json` in the package's folder; `dryRun` lists the tarball's files without writing it. */
export function npmPack(pkg: WorkspacePackage, options: { dryRun?: boolean; destination?: string } = {}): PackResult {
  const args = ['pack', '--json', '--ignore-scripts', '--loglevel=error'];
  if (options.dryRun) args.push('--dry-run');
  if (options.destination) args.push('--pack-destination', options.destination);
  const r = runSync(['npm', ...args], { cwd: pkg.dir, timeoutMs: 60_000 });
  if (r.exitCode !== 0) throw new Error(`npm pack in ${pkg.dir} failed (${r.exitCode}): ${r.stderr}`);
  const [out] = JSON.parse(r.stdout) as {
    name: string;
    version: string;
    filename: string;
    files: { path: string }[];
  }[];
  if (!out) throw new Error(`npm pack in ${pkg.dir}: no result`);
  return { name: out.name, version: out.version, filename: out.filename, files: out.files.map((f) => f.path) };
}

/** The built files a package needs before it can be packed: its bin targets and `main`-ish entry. */
export function missingBuildOutput(pkg: WorkspacePackage): string[] {
  const wanted = Object.values(binMap(pkg.manifest)).map(normalisePath);
  if (!existsSync(join(pkg.dir, 'dist'))) wanted.push('dist/');
  return [...new Set(wanted)].filter((f) => !existsSync(join(pkg.dir, f)));
}
