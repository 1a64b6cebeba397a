import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ExecError } from '@kpng/kit';
import { runBytes, runChecked } from '../netns/run.js';
import { cpioArchive, type CpioEntry, DIRECTORY, FILE } from './cpio.js';
import type { CachedKernel } from './fetch-kernel.js';
import { initScript } from './init-script.js';
import { INITRAMFS_MODULES } from './kernels.js';

const BUSYBOX = '/bin/busybox';

/**
 * Builds (once per kernel, cached beside it) a small initramfs: static busybox, the modules that
 * mount the host root, in dependency order, and `/init`.
 */
export async function ensureInitramfs(kernel: CachedKernel): Promise<string> {
  const out = join(dirname(kernel.root), 'initramfs.cpio');
  if (existsSync(out)) return out;
  if (!existsSync(BUSYBOX)) throw new Error(`${BUSYBOX} is missing: install busybox-static`);
  const modules = await moduleFiles(kernel);
  const entries: CpioEntry[] = [
    ...['bin', 'proc', 'sys', 'dev', 'modules'].map((path) => ({ path, mode: DIRECTORY | 0o755 })),
    { path: 'bin/busybox', mode: FILE | 0o755, data: readFileSync(BUSYBOX) },
    {
      path: 'init',
      mode: FILE | 0o755,
      data: Buffer.from(initScript(`${kernel.root}/lib/modules/${kernel.release}`, kernel.release)),
    },
    { path: 'modules/order', mode: FILE | 0o644, data: Buffer.from(modules.map(koName).join('\n')) },
    ...(await Promise.all(
      modules.map(async (file) => ({
        path: `modules/${koName(file)}`,
        mode: FILE | 0o644,
        data: await moduleBytes(file),
      })),
    )),
  ];
  const tmp = `${out}.${process.pid}`;
  writeFileSync(tmp, cpioArchive(entries));
  renameSync(tmp, out);
  return out;
}

/** The `.ko` files to insmod, dependencies first, each once (`modprobe --show-depends`). */
async function moduleFiles(kernel: CachedKernel): Promise<string[]> {
  const files: string[] = [];
  for (const module of INITRAMFS_MODULES) {
    const { stdout } = await runChecked([
      'modprobe',
      '-d',
      kernel.root,
      '-S',
      kernel.release,
      '--show-depends',
      module,
    ]);
    for (const line of stdout.split('\n')) {
      const file = /^insmod (\S+\.ko(?:\.xz|\.zst)?)/.exec(line.trim())?.[1];
      if (file !== undefined && !files.includes(file)) files.push(file);
    }
  }
  if (files.length === 0)
    throw new Error(`kernel ${kernel.release}: modprobe found none of ${INITRAMFS_MODULES.join(', ')}`);
  return files;
}

function koName(file: string): string {
  return basename(file).replace(/\.(xz|zst)$/, '');
}

/** Newer Debian kernels compress modules; busybox's insmod wants them plain. */
async function moduleBytes(file: string): Promise<Buffer> {
  if (!/\.(xz|zst)$/.test(file)) return readFileSync(file);
  const tool = file.endsWith('.xz') ? 'xz' : 'zstd';
  const argv = [tool, '-dc', file];
  const result = await runBytes(argv, { timeoutMs: 30_000 });
  if (result.exitCode !== 0)
    throw new ExecError(argv, { exitCode: result.exitCode ?? -1, stdout: '', stderr: result.stderr });
  return result.stdout;
}
