import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

const MANIFEST_EXTENSIONS = /\.(ya?ml|json)$/;

/**
 * The manifest files `path` stands for: itself, or for a directory every `*.yaml`, `*.yml` and
 * `*.json` directly inside it, sorted by name (so that a duplicate object resolves the same way on
 * every read: the last file wins). Hidden files are skipped, as editors leave swap files there.
 */
export async function listManifestFiles(path: string): Promise<readonly string[]> {
  const info = await stat(path);
  if (!info.isDirectory()) return [path];
  const names = await readdir(path);
  return names
    .filter((name) => MANIFEST_EXTENSIONS.test(name) && !name.startsWith('.'))
    .sort()
    .map((name) => join(path, name));
}

/**
 * A cheap fingerprint of the inputs (names, sizes, mtimes, inodes) for the polling fallback;
 * "missing" when `path` cannot be read.
 */
export async function fingerprintManifests(path: string): Promise<string> {
  try {
    const files = await listManifestFiles(path);
    const stats = await Promise.all(
      files.map(async (file) => {
        const s = await stat(file).catch(() => undefined);
        return s ? `${file}:${s.size}:${s.mtimeMs}:${s.ino}` : `${file}:missing`;
      }),
    );
    return stats.join('\n');
  } catch {
    return 'missing';
  }
}
