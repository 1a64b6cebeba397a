#!/usr/bin/env node
// Compiles bpf/*.c into dist/bpf/*.o with clang (-target bpf -O2 -g: BTF and line info for the
// verifier's messages). Part of the package's `build`; the objects ship in the published package,
// so a user needs no compiler. A program listed in VARIANTS is also built once more per variant with
// its -D flag (stale_udp.c: with and without the bpf_sock_destroy kfunc, which Linux < 6.5 lacks). Headers: linux-libc-dev (<linux/bpf.h>) and libbpf-dev
// (<bpf/bpf_helpers.h>); Debian keeps <asm/types.h> under the multiarch include directory.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { arch } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const MULTIARCH = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' };
/** Extra objects of one source: file -> [[object suffix, -D flag], ...]. */
const VARIANTS = { 'stale_udp.c': [['_destroy', '-DKPNG_SOCK_DESTROY']] };

/** Compiles every program; with `onlyStale` (`--stale`), those whose object is missing or older than a source. */
function buildObjects({ onlyStale = false } = {}) {
  const src = join(root, 'bpf');
  const out = join(root, 'dist', 'bpf');
  mkdirSync(out, { recursive: true });
  const headers = readdirSync(src).filter((f) => f.endsWith('.h'));
  const newestHeader = Math.max(0, ...headers.map((h) => statSync(join(src, h)).mtimeMs));
  const include = MULTIARCH[arch()];
  for (const file of readdirSync(src).filter((f) => f.endsWith('.c'))) {
    const input = join(src, file);
    for (const [suffix, ...defines] of [[''], ...(VARIANTS[file] ?? [])]) {
      const output = join(out, file.replace(/\.c$/, `${suffix}.o`));
      if (onlyStale && existsSync(output)) {
        const built = statSync(output).mtimeMs;
        if (built >= statSync(input).mtimeMs && built >= newestHeader) continue;
      }
      const args = ['-target', 'bpf', '-O2', '-g', '-Wall', '-Werror', ...defines];
      if (include !== undefined && existsSync(`/usr/include/${include}`)) args.push('-I', `/usr/include/${include}`);
      execFileSync('clang', [...args, '-c', input, '-o', output], { stdio: 'inherit' });
    }
  }
}

buildObjects({ onlyStale: process.argv.includes('--stale') });
