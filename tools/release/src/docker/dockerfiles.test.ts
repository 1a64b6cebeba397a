import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireBuilt } from '../built.js';
import { npmPack } from '../npm/pack.js';
import { binMap, normalisePath, publishablePackages } from '../workspace.js';
import { aptPackages, finalStage, runCommands, user } from './dockerfile.js';
import { imageSpec, IMAGE_CATALOG } from '../oci/catalog.js';
import { BASE_IMAGE as RUNTIME_BASE, imageUser } from '../oci/image-config.js';
import { entrypointProgram, HOST_PROCESS_BASE, images, INSTALL_ROOT, isWindowsImage, type Image } from './images.js';

// The catalog generates the Linux images; the Windows HostProcess image (kpng-win-kernel) is written by
// hand on its own base and checked below.
const windowsImages = images().filter(isWindowsImage);
const all = images().filter((i) => !isWindowsImage(i));
/** Debian packages each image's backend calls, and no more (the catalog's list). */
const APT: Record<string, string[]> = Object.fromEntries(IMAGE_CATALOG.map((s) => [s.name, [...s.apt].sort()]));
const BUILD_TOOLS = /\b(build-essential|gcc|g\+\+|make|python3?|git|curl|wget)\b/;

describe('images', () => {
  it('one Dockerfile per catalog entry (the core alone, core + nft, compat kube-proxy, ...)', () => {
    expect(all.map((i) => i.name).sort()).toEqual(Object.keys(APT).sort());
  });
});

describe.each(all.map((i) => [i.name, i] as const))('image %s', (_name, image: Image) => {
  const last = finalStage(image.parsed);
  const runs = runCommands(last);

  it(`is multi-stage on ${RUNTIME_BASE}: build, install, runtime`, () => {
    expect(image.parsed.stages.map((s) => s.from)).toEqual([RUNTIME_BASE, RUNTIME_BASE, RUNTIME_BASE]);
    const [build, install] = image.parsed.stages;
    const buildRuns = runCommands(build!).join('\n');
    expect(buildRuns).toMatch(/\bnpm install\b/);
    expect(buildRuns).toMatch(/\bnpx nx run-many -t build\b/);
    expect(buildRuns).toMatch(/\bnpm pack\b.*--pack-destination \/packs/);
    expect(runCommands(install!).join('\n')).toMatch(/npm install --omit=dev .*\/packs\/\*\.tgz/);
    expect(install!.instructions.find((i) => i.keyword === 'WORKDIR')?.args).toBe(INSTALL_ROOT);
  });

  it('the runtime stage copies the installed tree and carries no npm and no build tools', () => {
    const copies = last.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args);
    expect(copies).toEqual([`--from=install ${INSTALL_ROOT} ${INSTALL_ROOT}`]);
    expect(runs.join('\n')).not.toMatch(/\bnpm (install|ci)\b/);
    expect(runs.join('\n')).toMatch(/rm -rf \/usr\/local\/lib\/node_modules\/npm/);
    expect(aptPackages(last).filter((p) => BUILD_TOOLS.test(p))).toEqual([]);
  });

  it('installs exactly the kernel tools its backend calls, without recommends, and cleans apt lists', () => {
    expect(aptPackages(last).sort()).toEqual(APT[image.name]);
    for (const r of runs.filter((x) => /apt-get install/.test(x))) {
      expect(r).toMatch(/--no-install-recommends/);
      expect(r).toMatch(/rm -rf \/var\/lib\/apt\/lists/);
    }
  });

  it('runs as non-root unless it programs the kernel', () => {
    expect(user(last)).toBe(imageUser(imageSpec(image.name)));
    // Numeric for the unprivileged user: the kubelet verifies `runAsNonRoot: true` only for a numeric USER.
    expect(user(last)).toBe(APT[image.name]!.length === 0 ? '1000:1000' : 'root');
  });

  it('packs every @kpng package its entrypoint needs (they are not on a registry)', () => {
    const names = new Set(image.packages.map((p) => p.manifest.name));
    const { file, args } = entrypointProgram(image);
    const need = [file.pkg.manifest.name];
    for (let i = 0; i < need.length; i++) {
      const pkg = publishablePackages().find((p) => p.manifest.name === need[i])!;
      for (const dep of Object.keys(pkg.manifest.dependencies ?? {}))
        if (dep.startsWith('@kpng/') && !need.includes(dep)) need.push(dep);
    }
    const backend = args[args.indexOf('--backend') + 1];
    if (args.includes('--backend')) need.push(backend!);
    for (const n of need) expect(names.has(n), n).toBe(true);
  });

  it('has a .dockerignore beside it keeping build output and dependencies out of the context', () => {
    const ignore = join(image.dockerfile + '.dockerignore');
    expect(existsSync(ignore)).toBe(true);
    const lines = readFileSync(ignore, 'utf8').split('\n');
    for (const p of ['**/node_modules', '**/dist', '.git', '.nx']) expect(lines).toContain(p);
  });

  it("ENTRYPOINT runs a file that is in the package's tarball (npm pack --dry-run)", ({ skip }) => {
    const { file, direct } = entrypointProgram(image);
    requireBuilt([file.pkg], skip);
    const packed = npmPack(file.pkg, { dryRun: true }).files;
    expect(packed, `${file.pkg.manifest.name} tarball`).toContain(file.file);
    if (direct) {
      // Executed without `node`: npm only makes bin targets executable, and it needs a shebang.
      expect(Object.values(binMap(file.pkg.manifest)).map(normalisePath), 'a bin target').toContain(file.file);
      expect(readFileSync(join(file.pkg.dir, file.file), 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    }
  });
});

describe.each(publishablePackages().map((p) => [p.manifest.name, p] as const))('package %s', (_n, pkg) => {
  it('its bin targets exist after a build and are in its tarball', ({ skip }) => {
    const bins = Object.entries(binMap(pkg.manifest));
    if (bins.length === 0) return void expect(pkg.manifest.bin).toBeUndefined();
    requireBuilt([pkg], skip);
    const packed = npmPack(pkg, { dryRun: true }).files;
    for (const [name, target] of bins) {
      expect(packed, `bin ${name}`).toContain(normalisePath(target));
      expect(
        readFileSync(join(pkg.dir, target), 'utf8').startsWith('#!/usr/bin/env node\n'),
        `bin ${name} shebang`,
      ).toBe(true);
    }
  });
});

describe.each(windowsImages.map((i) => [i.name, i] as const))('Windows image %s', (_name, image: Image) => {
  const last = finalStage(image.parsed);
  it('builds on a supported Node.js line and runs on the pinned HostProcess base, as the pod names the account', () => {
    const [build, install] = image.parsed.stages;
    expect(build!.from).toBe(RUNTIME_BASE);
    expect(install!.from).toBe(RUNTIME_BASE);
    expect(last.from).toBe(`${HOST_PROCESS_BASE}:v1.0.0`);
    expect(runCommands(last)).toEqual([]); // no shell in the HostProcess base
    expect(user(last)).toBeUndefined();
  });
});
