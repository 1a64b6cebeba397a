import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * buildah on its own storage under the cache folder, with the vfs driver (no overlay mounts
 * needed): `from scratch`, `mount` (a plain folder with vfs), `config`, `commit` to an OCI archive.
 * Nothing is run inside the image (`buildah run` needs a container runtime).
 */
export class Buildah {
  readonly #base: string[];

  constructor(cacheDir: string) {
    const root = join(cacheDir, 'buildah');
    mkdirSync(root, { recursive: true });
    this.#base = ['--storage-driver', 'vfs', '--root', join(root, 'storage'), '--runroot', join(root, 'run')];
  }

  run(args: readonly string[], timeout = 300_000): string {
    const r = spawnSync('buildah', [...this.#base, ...args], {
      encoding: 'utf8',
      timeout,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (r.status !== 0)
      throw new Error(`buildah ${args.join(' ')} failed (${r.status ?? r.error?.message}): ${r.stderr}`);
    return r.stdout.trim();
  }

  /** A new working container named `name` (one left by an interrupted build is removed first). */
  fromScratch(name: string): string {
    spawnSync('buildah', [...this.#base, 'rm', name], { stdio: 'ignore', timeout: 60_000 });
    return this.run(['from', '--name', name, 'scratch']);
  }

  mount(container: string): string {
    return this.run(['mount', container]);
  }

  unmount(container: string): void {
    this.run(['umount', container]);
  }

  remove(container: string): void {
    this.run(['rm', container]);
  }
}
