import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Where downloaded kernels and built initramfs images live: `<repo>/.cache/kpng-vm` (ignored by git,
 * created on demand, so a fresh CI clone fills it on first use), or `KPNG_VM_CACHE`.
 */
export function vmCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env['KPNG_VM_CACHE'] ?? join(repoRoot(), '.cache', 'kpng-vm');
  mkdirSync(dir, { recursive: true });
  return dir;
}

function repoRoot(): string {
  // src/vm/cache.ts (or dist/vm/cache.js) inside tools/lab.
  return resolve(import.meta.dirname, '..', '..', '..', '..');
}
