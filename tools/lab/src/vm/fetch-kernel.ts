import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run, runChecked } from '../netns/run.js';
import { vmCacheDir } from './cache.js';
import type { KernelSpec } from './kernels.js';
import { privateAptOptions } from './private-apt.js';
import { extractVmlinux } from './vmlinux.js';

/** A Debian kernel unpacked into the cache, ready to boot. */
export interface CachedKernel {
  readonly spec: KernelSpec;
  /** `6.1.0-56-amd64`: the `uname -r` of the guest and the modules folder name. */
  readonly release: string;
  /** The unpacked package: `lib/modules/<release>` with a fresh `modules.dep`. */
  readonly root: string;
  /** Uncompressed ELF kernel: QEMU boots it through its PVH entry, faster than the bzImage under TCG (docs/PERFORMANCE.md, "Figures behind choices in the code"). */
  readonly vmlinux: string;
}

const READY = 'ready';
const FETCH_TIMEOUT_MS = 300_000;

/**
 * Resolves the spec's image package with apt, downloads it (`apt-get download`: installing it would
 * pull udev and initramfs-tools into the host), unpacks it with `dpkg-deb -x`, runs `depmod -b` (the
 * package ships no modules.dep) and extracts `vmlinux`. Cached per image package: a new Debian kernel
 * ABI is fetched once, the next run boots from the cache without touching apt.
 */
export async function ensureKernel(spec: KernelSpec, cache = vmCacheDir()): Promise<CachedKernel> {
  const apt =
    spec.release === undefined ? [] : await privateAptOptions(spec.release, cache).catch((error: Error) => error);
  const resolved =
    apt instanceof Error
      ? { error: `kernel ${spec.id}: cannot read ${spec.release} from the host's Debian mirror: ${apt.message}` }
      : await resolveImagePackage(spec, apt);
  const previous = lastGood(spec, cache);
  if (typeof resolved !== 'string') {
    // Offline, or no apt lists: boot the kernel fetched last time, if any.
    if (previous === undefined) throw new Error(resolved.error);
    return cachedKernel(spec, previous);
  }
  const dir = join(cache, 'kernels', resolved);
  if (!existsSync(join(dir, READY))) {
    try {
      await fetchInto(resolved, dir, apt instanceof Error ? [] : apt);
    } catch (error) {
      // A stale apt list names a package the mirror no longer has: keep booting the last good one.
      if (previous === undefined) throw error;
      return cachedKernel(spec, previous);
    }
  }
  writeFileSync(join(cache, `${spec.id}.good`), resolved);
  return cachedKernel(spec, dir);
}

function lastGood(spec: KernelSpec, cache: string): string | undefined {
  const file = join(cache, `${spec.id}.good`);
  if (!existsSync(file)) return undefined;
  const dir = join(cache, 'kernels', readFileSync(file, 'utf8').trim());
  return existsSync(join(dir, READY)) ? dir : undefined;
}

async function resolveImagePackage(spec: KernelSpec, apt: readonly string[]): Promise<string | { error: string }> {
  const result = await run(['apt-cache', ...apt, 'depends', spec.metaPackage], { timeoutMs: 30_000 });
  const image = /Depends: (linux-image-[0-9][^\s]*-amd64)\b/.exec(result.stdout)?.[1];
  if (image !== undefined && image.startsWith(`linux-image-${spec.id}.`)) return image;
  const from = spec.release === undefined ? '' : ` from ${spec.release}`;
  return {
    error:
      `kernel ${spec.id}: apt offers ${image ?? 'no image'} for ${spec.metaPackage}${from}; ` + `run 'apt-get update'`,
  };
}

async function fetchInto(image: string, dir: string, apt: readonly string[]): Promise<void> {
  const work = `${dir}.tmp-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    // `_apt` cannot write into the cache folder: download as the current user instead.
    // `apt-get download` writes into its working folder: coreutils' `env --chdir` starts it there.
    await runChecked(
      ['env', `--chdir=${work}`, 'apt-get', '-q', '-o', 'APT::Sandbox::User=root', ...apt, 'download', image],
      {
        timeoutMs: FETCH_TIMEOUT_MS,
      },
    );
    const deb = readdirSync(work).find((name) => name.endsWith('.deb'));
    if (deb === undefined) throw new Error(`apt-get download ${image} left no .deb`);
    await runChecked(['dpkg-deb', '-x', join(work, deb), join(work, 'root')], { timeoutMs: FETCH_TIMEOUT_MS });
    rmSync(join(work, deb));
    const releaseName = onlyEntry(join(work, 'root', 'lib', 'modules'));
    await runChecked(['depmod', '-b', join(work, 'root'), releaseName], { timeoutMs: FETCH_TIMEOUT_MS });
    await extractVmlinux(join(work, 'root', 'boot', `vmlinuz-${releaseName}`), join(work, 'vmlinux'));
    writeFileSync(join(work, READY), `${image}\n`);
    // Another suite may have fetched the same kernel meanwhile: keep whichever landed first.
    try {
      renameSync(work, dir);
    } catch {
      if (!existsSync(join(dir, READY))) throw new Error(`cannot move ${work} to ${dir}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function cachedKernel(spec: KernelSpec, dir: string): CachedKernel {
  const root = join(dir, 'root');
  const release = onlyEntry(join(root, 'lib', 'modules'));
  return { spec, release, root, vmlinux: join(dir, 'vmlinux') };
}

function onlyEntry(dir: string): string {
  const entries = readdirSync(dir);
  if (entries.length !== 1 || entries[0] === undefined)
    throw new Error(`expected one kernel in ${dir}, found ${entries.join(', ')}`);
  return entries[0];
}
