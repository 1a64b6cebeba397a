import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readElfDeps, resolveIn, slimRootfs, whichIn } from './slim.js';

/**
 * A root filesystem made by hand from the host's own ELF files (x86-64, merged /usr, as the
 * images'): `/usr/bin/true` and `/usr/bin/ls` with the libraries they link, copied under their
 * sonames, and the loader where Debian puts it.
 */
const LIB = '/usr/lib/x86_64-linux-gnu';
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function put(root: string, path: string, from: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  copyFileSync(from, join(root, path));
}
function link(root: string, path: string, target: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  symlinkSync(target, join(root, path));
}
function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}
/** The host file behind an image path, following the host's links. */
function host(path: string): string {
  const real = resolveIn('/', path, new Set());
  if (real === undefined) throw new Error(`${path} is not on this host`);
  return real;
}
/** `file` at `path` in `root`, and every library it links (recursively) at LIB/<soname>. */
function putWithLibraries(root: string, path: string, file: string): void {
  put(root, path, file);
  for (const soname of readElfDeps(file)?.needed ?? []) {
    if (existsSync(join(root, LIB, soname))) continue;
    putWithLibraries(root, `${LIB}/${soname}`, host(`${LIB}/${soname}`));
  }
}

function handMadeRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'kpng-slim-'));
  roots.push(root);
  for (const [l, t] of [
    ['bin', 'usr/bin'],
    ['sbin', 'usr/sbin'],
    ['lib', 'usr/lib'],
    ['lib64', 'usr/lib64'],
  ] as const)
    link(root, l, t);
  const loader = readElfDeps(host('/usr/bin/true'))!.interpreter!;
  put(root, `${LIB}/ld-linux-x86-64.so.2`, host(loader));
  link(root, '/usr/lib64/ld-linux-x86-64.so.2', `${LIB.replace('/usr', '')}/ld-linux-x86-64.so.2`);
  putWithLibraries(root, '/usr/bin/true', host('/usr/bin/true'));
  putWithLibraries(root, '/usr/bin/ls', host('/usr/bin/ls'));
  putWithLibraries(root, '/usr/bin/env', host('/usr/bin/env'));
  // iptables' layout: the PATH name through /etc/alternatives to one flavour's program.
  put(root, '/usr/sbin/xtables-nft-multi', host('/usr/bin/true'));
  put(root, '/usr/sbin/xtables-legacy-multi', host('/usr/bin/true'));
  link(root, '/usr/sbin/iptables', '/etc/alternatives/iptables');
  link(root, '/etc/alternatives/iptables', '/usr/sbin/xtables-nft-multi');
  link(root, '/usr/sbin/iptables-legacy-save', 'xtables-legacy-multi');
  put(root, `${LIB}/xtables/libxt_mark.so`, host(`${LIB}/ld-linux-x86-64.so.2`));
  // A native addon (an ELF named .node) that needs what ls needs.
  put(root, '/opt/kpng/node_modules/addon/build/addon.node', host('/usr/bin/ls'));
  // What nothing runs or loads.
  write(root, '/usr/bin/zcat', '#!/bin/sh\nexec gzip -cd "$@"\n');
  put(root, `${LIB}/libunused.so.1`, host(`${LIB}/ld-linux-x86-64.so.2`));
  link(root, `${LIB}/libunused.so`, 'libunused.so.1');
  write(root, '/usr/lib/locale/C.utf8/LC_CTYPE', 'data');
  write(root, '/usr/lib/os-release', 'ID=debian\n');
  link(root, '/etc/os-release', '../usr/lib/os-release');
  write(root, '/var/lib/dpkg/status', 'Package: coreutils\n');
  write(root, '/var/lib/dpkg/info/coreutils.list', '/usr/bin/ls\n');
  write(root, '/usr/share/perl5/Debconf/Log.pm', '1;\n');
  write(root, '/usr/share/doc/coreutils/copyright', 'GPL\n');
  return root;
}

const ROOTS = {
  programs: ['/usr/bin/true', '/usr/bin/env', '/usr/sbin/iptables'],
  libraries: [],
  addonDirs: ['/opt/kpng'],
};

describe('readElfDeps', () => {
  it("reads a program's loader and DT_NEEDED sonames, and nothing from a script", () => {
    const ls = readElfDeps(host('/usr/bin/ls'))!;
    expect(ls.interpreter).toMatch(/^\/lib(64)?\/.*ld-linux-x86-64\.so\.2$/);
    expect(ls.needed).toContain('libc.so.6');
    // The loader names no loader and links nothing.
    expect(readElfDeps(host(ls.interpreter!))).toEqual({ needed: [] });
    const root = handMadeRoot();
    expect(readElfDeps(join(root, '/usr/bin/zcat'))).toBeUndefined();
  });
});

describe('resolveIn and whichIn', () => {
  it("follow absolute links from the image's root, not the host's, and record each link met", () => {
    const root = handMadeRoot();
    const links = new Set<string>();
    expect(resolveIn(root, '/sbin/iptables', links)).toBe('/usr/sbin/xtables-nft-multi');
    expect([...links].sort()).toEqual(['/etc/alternatives/iptables', '/sbin', '/usr/sbin/iptables']);
    expect(resolveIn(root, '/lib64/ld-linux-x86-64.so.2', new Set())).toBe(`${LIB}/ld-linux-x86-64.so.2`);
    expect(resolveIn(root, '/usr/bin/missing', new Set())).toBeUndefined();
    expect(whichIn(root, '/usr/local/bin:/usr/sbin:/usr/bin', 'iptables')).toBe('/usr/sbin/iptables');
    expect(whichIn(root, '/usr/local/bin:/usr/sbin:/usr/bin', 'sh')).toBeUndefined();
  });
});

describe('slimRootfs', () => {
  it('keeps the programs, their links, companions, plug-ins and libraries (addons included); removes the rest', () => {
    const root = handMadeRoot();
    const result = slimRootfs(root, ROOTS);
    const has = (p: string): boolean => resolveIn(root, p, new Set()) !== undefined;
    for (const kept of [
      '/usr/bin/true',
      '/usr/bin/env',
      '/usr/sbin/iptables',
      '/usr/sbin/xtables-nft-multi',
      '/usr/sbin/xtables-legacy-multi', // the other flavour, chosen at run time
      '/usr/sbin/iptables-legacy-save', // a link ending on a kept program
      `${LIB}/xtables/libxt_mark.so`,
      `${LIB}/libc.so.6`,
      '/usr/lib64/ld-linux-x86-64.so.2',
      `${LIB}/ld-linux-x86-64.so.2`,
      '/usr/lib/os-release',
      '/etc/os-release',
      '/var/lib/dpkg/status',
      '/usr/share/doc/coreutils/copyright',
      '/opt/kpng/node_modules/addon/build/addon.node',
    ])
      expect(has(kept), kept).toBe(true);
    for (const soname of readElfDeps(host('/usr/bin/ls'))!.needed) expect(has(`${LIB}/${soname}`), soname).toBe(true);
    for (const gone of [
      '/usr/bin/ls',
      '/usr/bin/zcat',
      `${LIB}/libunused.so.1`,
      `${LIB}/libunused.so`,
      '/usr/lib/locale',
      '/var/lib/dpkg/info',
      '/usr/share/perl5',
    ])
      expect(existsSync(join(root, gone)) || has(gone), gone).toBe(false);
    expect(readlinkSync(join(root, '/etc/alternatives/iptables'))).toBe('/usr/sbin/xtables-nft-multi');
    expect(result.kept).toContain('/usr/sbin/xtables-legacy-multi');
    expect(result.removedFiles).toBeGreaterThanOrEqual(7);
    expect(result.removedBytes).toBeGreaterThan(0);
  });

  it('refuses an image where a kept program needs a library that is not there, or a program that is missing', () => {
    const root = handMadeRoot();
    rmSync(join(root, LIB, 'libc.so.6'));
    expect(() => slimRootfs(root, ROOTS)).toThrow(/needs libc\.so\.6, which is not in the image/);
    expect(() => slimRootfs(handMadeRoot(), { ...ROOTS, programs: ['/usr/bin/nft'] })).toThrow(
      /\/usr\/bin\/nft is not in the image/,
    );
  });
});
