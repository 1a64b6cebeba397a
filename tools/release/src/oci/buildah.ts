import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runSync } from '@kpng/kit';

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
    const r = runSync(['buildah', ...this.#base, ...args], { timeoutMs: timeout });
    if (r.exitCode !== 0) throw new Error(`buildah ${args.join(' ')} failed (${r.exitCode}): ${r.stderr}`);
    return r.stdout.trim();
  }

  /** A new working container named `name` (one left by an interrupted build is removed first). */
  fromScratch(name: string): string {
    runSync(['buildah', ...this.#base, 'rm', name], { timeoutMs: 60_000 }); // no such container: nothing to remove
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
