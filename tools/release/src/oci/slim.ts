import {
  closeSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  rmdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join, posix } from 'node:path';

/**
 * Distroless-style slimming of an image's root filesystem: Debian's Essential set brings a shell,
 * perl, dpkg, coreutils and util-linux, which no program of the image runs. After the root
 * filesystem, node and /opt/kpng are in place, everything executable or loadable under /usr's
 * program and library folders goes, except what the image's programs need: node, the tools the
 * entrypoint executes, the libraries it loads through FFI, the native addons in /opt/kpng, the
 * shared libraries each of those links (their ELF `DT_NEEDED`, followed to the end), the dynamic
 * loader, and every symbolic link (e.g. `/etc/alternatives`' choices, `iptables-legacy-save`) that
 * ends on something kept. The dpkg database keeps its `status` file (what image scanners read),
 * not its per-package lists.
 */
export interface SlimRoots {
  /** Absolute paths in the image of programs to keep (with the links leading to them). */
  readonly programs: readonly string[];
  /** Sonames loaded through FFI (`dlopen`), e.g. `libbpf.so.1`. */
  readonly libraries: readonly string[];
  /** Folders whose ELF files are scanned as roots (native addons), e.g. `/opt/kpng`. */
  readonly addonDirs: readonly string[];
}

export interface SlimResult {
  readonly removedFiles: number;
  readonly removedBytes: number;
  /** Real files kept in the slimmed folders (programs and libraries), image paths. */
  readonly kept: readonly string[];
}

/** Folders slimmed: what is not kept in them is removed. */
const SLIMMED = ['/usr/bin', '/usr/sbin', '/usr/lib', '/usr/lib64', '/usr/libexec'];
/** Removed whole: Debian's package machinery and its caches (the dpkg `status` file stays). */
const DROPPED = [
  '/var/lib/dpkg/info',
  '/var/lib/dpkg/available',
  '/var/lib/dpkg/status-old',
  '/var/lib/dpkg/diversions-old',
  '/var/cache/debconf',
  '/var/cache/ldconfig',
  '/var/log',
  '/usr/share/perl5',
  '/usr/share/debconf',
  '/usr/share/bash-completion',
  '/usr/share/zsh',
  '/usr/share/menu',
  '/usr/share/bug',
  '/usr/share/lintian',
];
/** Data files in the slimmed folders kept as they are (`/etc/os-release` links to it). */
const KEPT_FILES = ['/usr/lib/os-release'];
/**
 * Plug-in folders a kept program opens at run time (not in `DT_NEEDED`): kept whole when the
 * program (its real file's name) is kept, and their ELF files' libraries with them.
 */
export const PLUGINS: Readonly<Record<string, readonly string[]>> = {
  'xtables-nft-multi': ['/usr/lib/x86_64-linux-gnu/xtables'],
  'xtables-legacy-multi': ['/usr/lib/x86_64-linux-gnu/xtables'],
};
/**
 * Programs kept with another: iptables' two flavours are one package, and which one runs is chosen
 * at run time (`--iptables-flavour`, or what the host's rules use), by names that link to either.
 */
export const COMPANIONS: Readonly<Record<string, readonly string[]>> = {
  'xtables-nft-multi': ['/usr/sbin/xtables-legacy-multi'],
  'xtables-legacy-multi': ['/usr/sbin/xtables-nft-multi'],
};
/** Where the dynamic loader looks for a soname (this recipe's Debian x86-64 root, merged /usr). */
const LIBRARY_DIRS = ['/usr/local/lib', '/usr/lib/x86_64-linux-gnu', '/usr/lib', '/usr/lib64'];

export function slimRootfs(root: string, roots: SlimRoots): SlimResult {
  const links = new Set<string>();
  const kept = new Set<string>();
  const keptDirs = new Set<string>();
  const queue: string[] = [];
  const keep = (real: string): void => {
    if (kept.has(real)) return;
    kept.add(real);
    queue.push(real);
  };
  for (const program of roots.programs) {
    const real = resolveIn(root, program, links);
    if (real === undefined) throw new Error(`slimming: ${program} is not in the image`);
    keep(real);
  }
  for (const soname of roots.libraries) keep(findLibrary(root, soname, links, 'FFI'));
  // An addon built for musl (koffi ships one beside glibc's) is never loaded on this glibc image.
  for (const dir of roots.addonDirs)
    for (const file of elfFilesUnder(root, dir))
      if (!(readElfDeps(join(root, file))?.needed ?? []).some((n) => n.startsWith('libc.musl'))) keep(file);
  while (queue.length > 0) {
    const file = queue.shift()!;
    const elf = readElfDeps(join(root, file));
    if (elf === undefined) continue;
    if (elf.interpreter !== undefined) {
      const loader = resolveIn(root, elf.interpreter, links);
      if (loader === undefined) throw new Error(`slimming: ${file}'s loader ${elf.interpreter} is not in the image`);
      keep(loader);
    }
    for (const soname of elf.needed) keep(findLibrary(root, soname, links, file));
    for (const companion of COMPANIONS[posix.basename(file)] ?? []) {
      const real = resolveIn(root, companion, links);
      if (real !== undefined) keep(real);
    }
    for (const dir of PLUGINS[posix.basename(file)] ?? []) {
      if (keptDirs.has(dir) || !isDir(join(root, dir))) continue;
      keptDirs.add(dir);
      for (const plugin of elfFilesUnder(root, dir)) keep(plugin);
    }
  }
  const counter = { removedFiles: 0, removedBytes: 0 };
  const protectedPath = (p: string): boolean =>
    kept.has(p) ||
    links.has(p) ||
    KEPT_FILES.includes(p) ||
    [...keptDirs].some((d) => p === d || p.startsWith(`${d}/`));
  for (const dir of SLIMMED) if (isDir(join(root, dir))) prune(root, dir, protectedPath, kept, counter);
  for (const path of DROPPED) {
    const abs = join(root, path);
    if (!exists(abs)) continue;
    counter.removedBytes += du(abs);
    counter.removedFiles++;
    rmSync(abs, { recursive: true, force: true });
  }
  return { ...counter, kept: [...kept].filter((p) => SLIMMED.some((d) => p.startsWith(`${d}/`))).sort() };
}

/** Removes what is not protected under `dir` (an image path), a symbolic link only when it does not end on a kept file; empty folders go too. */
function prune(
  root: string,
  dir: string,
  protectedPath: (p: string) => boolean,
  kept: ReadonlySet<string>,
  counter: { removedFiles: number; removedBytes: number },
): void {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (protectedPath(path)) continue;
    const abs = join(root, path);
    if (entry.isDirectory()) {
      prune(root, path, protectedPath, kept, counter);
      if (readdirSync(abs).length === 0) rmdirSync(abs);
      continue;
    }
    if (entry.isSymbolicLink()) {
      const target = resolveIn(root, path, new Set());
      if (target !== undefined && kept.has(target)) continue;
    } else {
      counter.removedBytes += lstatSync(abs).size;
    }
    counter.removedFiles++;
    rmSync(abs, { force: true });
  }
}

/**
 * `path` in the image with every symbolic link followed inside `root` (an absolute target is taken
 * from the image's root, not the host's); each link met on the way is added to `links` by its
 * resolved location. Undefined when something on the way does not exist.
 */
export function resolveIn(root: string, path: string, links: Set<string>, hops = 0): string | undefined {
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  let current = '';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === '..') {
      current = posix.dirname(current || '/') === '/' ? '' : posix.dirname(current);
      continue;
    }
    const next = `${current}/${part}`;
    let stat;
    try {
      stat = lstatSync(join(root, next));
    } catch {
      return undefined;
    }
    if (stat.isSymbolicLink()) {
      if (hops >= 40) throw new Error(`slimming: too many symbolic links resolving ${path}`);
      links.add(next);
      const target = readlinkSync(join(root, next));
      const base = target.startsWith('/') ? target : posix.join(current || '/', target);
      return resolveIn(root, posix.join(base, ...parts.slice(i + 1)), links, hops + 1);
    }
    current = next;
  }
  return current || '/';
}

/** The first executable `tool` in `searchPath`'s folders (a `PATH` value) in the image, as `execvp` finds it. */
export function whichIn(root: string, searchPath: string, tool: string): string | undefined {
  for (const dir of searchPath.split(':').filter((d) => d !== '')) {
    const real = resolveIn(root, `${dir}/${tool}`, new Set());
    if (real !== undefined && statSync(join(root, real)).isFile() && (statSync(join(root, real)).mode & 0o111) !== 0)
      return `${dir}/${tool}`;
  }
  return undefined;
}

function findLibrary(root: string, soname: string, links: Set<string>, neededBy: string): string {
  for (const dir of LIBRARY_DIRS) {
    const found = resolveIn(root, `${dir}/${soname}`, links);
    if (found !== undefined) return found;
  }
  throw new Error(`slimming: ${neededBy} needs ${soname}, which is not in the image`);
}

function elfFilesUnder(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (path: string): void => {
    for (const entry of readdirSync(join(root, path), { withFileTypes: true })) {
      const p = `${path}/${entry.name}`;
      if (entry.isDirectory()) walk(p);
      else if (entry.isFile() && /\.(node|so(\.\d+)*)$/.test(entry.name) && isElf(join(root, p))) out.push(p);
    }
  };
  if (isDir(join(root, dir))) walk(dir);
  return out;
}

export interface ElfDeps {
  /** `PT_INTERP`: the dynamic loader a program names (none for a shared library). */
  readonly interpreter?: string;
  /** `DT_NEEDED` sonames, in order. */
  readonly needed: readonly string[];
}

/**
 * The loader and `DT_NEEDED` entries of a 64-bit little-endian ELF file (x86-64's), read from its
 * program headers and dynamic section; undefined for anything else (scripts, data, other ELF kinds).
 */
export function readElfDeps(file: string): ElfDeps | undefined {
  const fd = openSync(file, 'r');
  try {
    const read = (position: number, length: number): Buffer => {
      const b = Buffer.alloc(length);
      const n = readSync(fd, b, 0, length, position);
      if (n !== length) throw new Error(`${file}: truncated ELF (${length} bytes at ${position})`);
      return b;
    };
    if (lstatSync(file).size < 64) return undefined;
    const header = read(0, 64);
    if (header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2 || header[5] !== 1) return undefined;
    const phoff = Number(header.readBigUInt64LE(0x20));
    const phentsize = header.readUInt16LE(0x36);
    const phnum = header.readUInt16LE(0x38);
    const segments = Array.from({ length: phnum }, (_, i) => {
      const ph = read(phoff + i * phentsize, 56);
      return {
        type: ph.readUInt32LE(0),
        offset: Number(ph.readBigUInt64LE(8)),
        vaddr: Number(ph.readBigUInt64LE(16)),
        filesz: Number(ph.readBigUInt64LE(32)),
      };
    });
    const toOffset = (vaddr: number): number => {
      const load = segments.find((s) => s.type === 1 && vaddr >= s.vaddr && vaddr < s.vaddr + s.filesz);
      if (load === undefined) throw new Error(`${file}: address ${vaddr} is in no loaded segment`);
      return vaddr - load.vaddr + load.offset;
    };
    const cString = (position: number): string => {
      const b = Buffer.alloc(256);
      const end = b.subarray(0, readSync(fd, b, 0, b.length, position)).indexOf(0);
      if (end < 0) throw new Error(`${file}: unterminated string at ${position}`);
      return b.toString('latin1', 0, end);
    };
    const interp = segments.find((s) => s.type === 3);
    const dynamic = segments.find((s) => s.type === 2);
    const needed: number[] = [];
    let strtab: number | undefined;
    if (dynamic !== undefined) {
      const d = read(dynamic.offset, dynamic.filesz);
      for (let at = 0; at + 16 <= d.length; at += 16) {
        const tag = d.readBigInt64LE(at);
        const value = Number(d.readBigUInt64LE(at + 8));
        if (tag === 0n) break;
        if (tag === 1n) needed.push(value);
        else if (tag === 5n) strtab = value;
      }
    }
    if (needed.length > 0 && strtab === undefined) throw new Error(`${file}: DT_NEEDED without DT_STRTAB`);
    return {
      ...(interp !== undefined ? { interpreter: cString(interp.offset) } : {}),
      needed: needed.map((n) => cString(toOffset(strtab!) + n)),
    };
  } finally {
    closeSync(fd);
  }
}

function isElf(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(4);
    return readSync(fd, b, 0, 4, 0) === 4 && b.readUInt32BE(0) === 0x7f454c46;
  } finally {
    closeSync(fd);
  }
}

function isDir(abs: string): boolean {
  try {
    return lstatSync(abs).isDirectory();
  } catch {
    return false;
  }
}

function exists(abs: string): boolean {
  try {
    lstatSync(abs);
    return true;
  } catch {
    return false;
  }
}

function du(abs: string): number {
  const stat = lstatSync(abs);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(abs).reduce((sum, name) => sum + du(join(abs, name)), 0);
}
