import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { processExecer, runChecked, withTimeout } from '@kpng/kit';
import { DEBIAN_SUITE } from './image-config.js';

/**
 * Minimal Debian root filesystems from apt with mmdebstrap: the Essential packages, the C++
 * runtime node links against, and the image's own packages, without documentation. Built once
 * per package set into `cacheDir` (keyed by suite, packages and the host's apt sources, which
 * are also where the packages come from), as a tarball.
 */
export const NODE_LIBS = ['libstdc++6', 'libgcc-s1'];
/** Bump to rebuild every cached root filesystem after a change to the recipe below. */
const RECIPE = 2;
/**
 * mmdebstrap's merged-/usr hook (what Debian's own images do): without it bookworm pulls in the
 * `usrmerge` package and, through it, perl, which doubles the root filesystem.
 */
const MERGED_USR_HOOK = '/usr/share/mmdebstrap/hooks/merged-usr';
const EXCLUDE = [
  '/usr/share/doc/*',
  '/usr/share/man/*',
  '/usr/share/info/*',
  '/usr/share/locale/*',
  '/usr/share/lintian/*',
  // glibc's iconv converters (8 MB): node converts with its own ICU, and neither it nor the kernel
  // tools open a character set through iconv (UTF-8 and ASCII are built into glibc anyway)
  '/usr/lib/x86_64-linux-gnu/gconv/*',
];

/** The host's apt sources (one-line `.list` and deb822 `.sources` files), passed to mmdebstrap as they are. */
export function aptSources(etc = '/etc/apt'): string[] {
  const files: string[] = [];
  const main = join(etc, 'sources.list');
  if (existsSync(main) && /^\s*deb\s/m.test(readFileSync(main, 'utf8'))) files.push(main);
  const dir = join(etc, 'sources.list.d');
  if (existsSync(dir))
    for (const f of readdirSync(dir).sort()) if (/\.(list|sources)$/.test(f)) files.push(join(dir, f));
  if (files.length === 0) throw new Error(`no apt sources in ${etc}: mmdebstrap has nowhere to fetch packages from`);
  return files;
}

export function mmdebstrapArgs(packages: readonly string[], out: string, sources: readonly string[]): string[] {
  return [
    '--variant=essential',
    `--hook-dir=${MERGED_USR_HOOK}`,
    `--include=${[...NODE_LIBS, ...packages].join(',')}`,
    // No fsync per unpacked file: the result is a tarball, written once at the end.
    '--dpkgopt=force-unsafe-io',
    ...EXCLUDE.map((p) => `--dpkgopt=path-exclude=${p}`),
    '--dpkgopt=path-include=/usr/share/doc/*/copyright',
    DEBIAN_SUITE,
    out,
    ...sources,
  ];
}

export function rootfsKey(packages: readonly string[], sources: readonly string[]): string {
  const h = createHash('sha256').update(
    JSON.stringify({ RECIPE, DEBIAN_SUITE, packages: [...packages].sort(), EXCLUDE }),
  );
  for (const s of sources) h.update(s).update(readFileSync(s));
  return h.digest('hex').slice(0, 16);
}

/** Path of a root filesystem tarball holding `packages`, built now unless cached. */
export async function rootfsTarball(
  cacheDir: string,
  packages: readonly string[],
  log: (l: string) => void = () => {},
): Promise<string> {
  const sources = aptSources();
  const dir = join(cacheDir, 'rootfs');
  const tarball = join(dir, `${DEBIAN_SUITE}-${rootfsKey(packages, sources)}.tar`);
  if (existsSync(tarball)) return tarball;
  mkdirSync(dir, { recursive: true });
  const partial = `${tarball}.${process.pid}.partial.tar`;
  log(`mmdebstrap ${DEBIAN_SUITE} + ${[...NODE_LIBS, ...packages].join(' ')}`);
  try {
    // stdin is not a terminal here: without sources given, mmdebstrap would read them from it.
    await runChecked(withTimeout(processExecer, 600_000), [
      'mmdebstrap',
      '--quiet',
      ...mmdebstrapArgs(packages, partial, sources),
    ]);
  } catch (e) {
    rmSync(partial, { force: true });
    throw new Error(`mmdebstrap failed: ${(e as Error).message}`);
  }
  renameSync(partial, tarball);
  return tarball;
}
