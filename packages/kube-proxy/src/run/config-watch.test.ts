import { chmod, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchConfigFile, type ConfigWatch } from './config-watch.js';

let dir: string;
let file: string;
let watching: ConfigWatch | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kpng-config-watch-'));
  file = join(dir, 'config.conf');
  await writeFile(file, 'mode: nftables\n');
});
afterEach(async () => {
  watching?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Resolves true once `onChange` was called, false if it was not within `ms` (an upper bound, not a timing). */
function watchFor(ms: number): { changed: Promise<boolean> } {
  let resolve!: (v: boolean) => void;
  const changed = new Promise<boolean>((r) => (resolve = r));
  watching = watchConfigFile(file, () => resolve(true));
  setTimeout(() => resolve(false), ms).unref();
  return { changed };
}

describe('watchConfigFile', () => {
  it.each([
    ['a write', () => writeFile(file, 'mode: iptables\n')],
    [
      'an atomic replace (a ConfigMap update)',
      async () => {
        await writeFile(join(dir, 'new'), 'mode: iptables\n');
        await rename(join(dir, 'new'), file);
      },
    ],
    ['a removal', () => rm(file)],
  ])('reports %s', async (_name, change) => {
    const { changed } = watchFor(5_000);
    await change();
    expect(await changed).toBe(true);
  });

  it('ignores a chmod (no write), as upstream ignores fsnotify Chmod events', async () => {
    const { changed } = watchFor(500);
    await chmod(file, 0o600);
    expect(await changed).toBe(false);
  });
});
