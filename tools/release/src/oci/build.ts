import { runSync } from '@kpng/kit';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { INSTALL_ROOT } from '../docker/images.js';
import { installTarballsAsync } from '../npm/install.js';
import { missingBuildOutput, npmPack } from '../npm/pack.js';
import { pruneNodeModules } from '../npm/prune.js';
import { publishablePackages, REPO_ROOT, type WorkspacePackage } from '../workspace.js';
import { Buildah } from './buildah.js';
import type { ImageSpec } from './catalog.js';
import {
  IMAGE_ENV,
  IMAGE_PATH,
  IMAGE_WORKDIR,
  imageLabels,
  imageUser,
  INSTALL_MANIFEST,
  NODE_USER,
} from './image-config.js';
import { NODE_RUNTIME, strippedNodeBinary } from './node-runtime.js';
import { rootfsTarball } from './rootfs.js';
import { slimRootfs, whichIn } from './slim.js';

/** Ignored by git: root filesystems, the node tarball, buildah's storage, work folders, archives. */
export const IMAGE_CACHE = join(REPO_ROOT, '.cache', 'images');

export interface BuildOptions {
  readonly cacheDir?: string;
  /** Where the OCI archives go (default `<cache>/out`). */
  readonly outDir?: string;
  readonly log?: (line: string) => void;
  /** Remove what no program of the image runs or loads (`slimRootfs`); default true. */
  readonly slim?: boolean;
}

export interface BuiltImage {
  readonly spec: ImageSpec;
  /** `kpng/<name>:<version of the image's main package>`. */
  readonly reference: string;
  readonly archive: string;
  readonly archiveBytes: number;
}

/**
 * Builds each image as the Dockerfile would, without a container engine: the Debian root
 * filesystem (mmdebstrap), node from npm at /usr/local/bin/node, the official image's `node`
 * user, the packed workspace packages installed into /opt/kpng, the entry's links and folders,
 * then buildah's config and commit to `<out>/<name>.oci.tar`. Needs the packages built and root.
 */
export async function buildImages(specs: readonly ImageSpec[], options: BuildOptions = {}): Promise<BuiltImage[]> {
  const cache = options.cacheDir ?? IMAGE_CACHE;
  const out = options.outDir ?? join(cache, 'out');
  const log = options.log ?? (() => {});
  const work = join(cache, 'work', String(process.pid));
  mkdirSync(out, { recursive: true });
  const packs = new Packs(join(work, 'packs'), log);
  try {
    const started = Date.now();
    const node = strippedNodeBinary(cache);
    const tarballs = specs.map((spec) => spec.packages.map((n) => packs.tarball(n)));
    // The slow parts wait on the network and the disk more than on the CPU: root filesystems (one
    // per distinct package set) and the npm installs all run at once, then each image is assembled.
    const rootfs = new Map<string, Promise<string>>();
    const settled = await Promise.allSettled(
      specs.map(async (spec, i) => {
        const key = [...spec.apt].sort().join(' ');
        if (!rootfs.has(key)) {
          const made = rootfsTarball(cache, spec.apt, log);
          made.catch(() => {}); // awaited below; this only keeps an early failure from being "unhandled"
          rootfs.set(key, made);
        }
        const staging = join(work, spec.name, 'opt-kpng');
        const install = await installTarballsAsync(staging, tarballs[i]!, INSTALL_MANIFEST);
        if (install.status !== 0)
          throw new Error(`${spec.name}: npm install --omit=dev of the tarballs failed: ${install.output}`);
        pruneNodeModules(join(staging, 'node_modules'));
        return { spec, staging, rootfs: await rootfs.get(key)! };
      }),
    );
    // Every step settles before the work folder goes (below): removing it under a running install
    // would fail with ENOTEMPTY and hide the step's own error. The first failure is the one thrown.
    const prepared: Prepared[] = [];
    for (const r of settled) {
      if (r.status === 'rejected') throw r.reason;
      prepared.push(r.value);
    }
    log(`root filesystems and installs ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const slim = options.slim ?? true;
    return prepared.map((p) => buildImage(p.spec, p.rootfs, p.staging, { cache, out, node, log, slim }));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

interface Prepared {
  readonly spec: ImageSpec;
  readonly staging: string;
  readonly rootfs: string;
}

interface Context {
  readonly cache: string;
  readonly out: string;
  readonly node: string;
  readonly log: (line: string) => void;
  readonly slim: boolean;
}

function buildImage(spec: ImageSpec, rootfs: string, staging: string, ctx: Context): BuiltImage {
  const started = Date.now();
  const steps: string[] = [];
  let last = started;
  const step = (what: string): void => {
    steps.push(`${what} ${((Date.now() - last) / 1000).toFixed(1)} s`);
    last = Date.now();
  };

  const buildah = new Buildah(ctx.cache);
  const container = buildah.fromScratch(`kpng-build-${spec.name}-${process.pid}`);
  try {
    const root = buildah.mount(container);
    try {
      run('tar', ['--numeric-owner', '-xf', rootfs, '-C', root]);
      mkdirSync(join(root, 'usr/local/bin'), { recursive: true });
      placeFile(ctx.node, join(root, 'usr/local/bin/node'));
      chmodSync(join(root, 'usr/local/bin/node'), 0o755);
      addNodeUser(root);
      placeTree(staging, join(root, INSTALL_ROOT));
      for (const [link, target] of Object.entries(spec.links ?? {})) {
        mkdirSync(dirname(join(root, link)), { recursive: true });
        symlinkSync(target, join(root, link));
      }
      const owner = spec.user === 'root' ? { uid: 0, gid: 0 } : NODE_USER;
      for (const dir of spec.userDirs ?? []) {
        mkdirSync(join(root, dir), { recursive: true });
        chownSync(join(root, dir), owner.uid, owner.gid);
      }
      step('files');
      if (ctx.slim) {
        const slim = slimRootfs(root, slimRoots(spec, root));
        ctx.log(
          `${spec.name}: slimmed: ${slim.removedFiles} files (${(slim.removedBytes / 1024 / 1024).toFixed(1)} MiB) removed, ${slim.kept.length} programs and libraries kept`,
        );
      }
    } finally {
      buildah.unmount(container);
    }
    step('slim');
    buildah.run(configArgs(spec, container));
    const version = mainPackage(spec).manifest.version;
    const reference = `kpng/${spec.name}:${version}`;
    const archive = join(ctx.out, `${spec.name}.oci.tar`);
    rmSync(archive, { force: true });
    buildah.run(['commit', '--quiet', '--format', 'oci', container, `oci-archive:${archive}:${reference}`], 600_000);
    const archiveBytes = statSync(archive).size;
    step('commit');
    ctx.log(
      `${reference}: ${archive} (${(archiveBytes / 1024 / 1024).toFixed(1)} MiB) in ${((Date.now() - started) / 1000).toFixed(1)} s (${steps.join(', ')})`,
    );
    return { spec, reference, archive, archiveBytes };
  } finally {
    buildah.remove(container);
  }
}

/**
 * What the image's programs run and load (see `slimRootfs`): node, `env` (the entrypoint links are
 * scripts starting `#!/usr/bin/env node`), the tools on PATH, the shell where the entry keeps one,
 * the FFI libraries and /opt/kpng's native addons.
 */
export function slimRoots(spec: ImageSpec, root: string): Parameters<typeof slimRootfs>[1] {
  const tools = spec.tools.map((tool) => {
    const found = whichIn(root, IMAGE_PATH, tool);
    if (found === undefined) throw new Error(`${spec.name}: ${tool} is not on the image's PATH (${IMAGE_PATH})`);
    return found;
  });
  return {
    programs: ['/usr/local/bin/node', '/usr/bin/env', ...(spec.shell ? ['/usr/bin/sh'] : []), ...tools],
    libraries: spec.libraries ?? [],
    addonDirs: [INSTALL_ROOT],
  };
}

/** `buildah config` for what the Dockerfile's runtime stage and its base image declare. */
export function configArgs(spec: ImageSpec, container: string): string[] {
  const env = { PATH: IMAGE_PATH, NODE_VERSION: NODE_RUNTIME.version, ...IMAGE_ENV };
  return [
    'config',
    '--os',
    'linux',
    '--arch',
    'amd64',
    '--workingdir',
    IMAGE_WORKDIR,
    '--user',
    imageUser(spec),
    '--entrypoint',
    JSON.stringify(spec.entrypoint),
    '--cmd',
    '',
    ...Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
    ...spec.ports.flatMap((p) => ['--port', `${p}/tcp`]),
    ...Object.entries(imageLabels(spec)).flatMap(([k, v]) => ['--label', `${k}=${v}`]),
    container,
  ];
}

/** The package whose version names the image: the last one listed (the others are its dependencies). */
export function mainPackage(spec: ImageSpec): WorkspacePackage {
  const name = spec.packages.at(-1)!;
  const pkg = publishablePackages().find((p) => p.manifest.name === name);
  if (!pkg) throw new Error(`${spec.name}: ${name} is not a publishable workspace package`);
  return pkg;
}

/**
 * The cache, the work folder and buildah's storage share one filesystem: a hard link (node, 120
 * MiB, never written to) and a rename (the installed tree, thousands of files) are instant where
 * copies took most of an image's assembly time. Copies remain the fallback.
 */
function placeFile(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

function placeTree(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  rmSync(to, { recursive: true, force: true });
  try {
    renameSync(from, to);
  } catch {
    mkdirSync(to, { recursive: true });
    run('cp', ['-a', `${from}/.`, to]);
  }
}

/** The official node image's `node` user and group (uid/gid 1000) with its home folder. */
function addNodeUser(root: string): void {
  const { name, uid, gid, home, shell } = NODE_USER;
  const has = (file: string): boolean =>
    existsSync(file) &&
    readFileSync(file, 'utf8')
      .split('\n')
      .some((l) => l.startsWith(`${name}:`));
  if (!has(join(root, 'etc/group'))) appendFileSync(join(root, 'etc/group'), `${name}:x:${gid}:\n`);
  if (!has(join(root, 'etc/passwd')))
    appendFileSync(join(root, 'etc/passwd'), `${name}:x:${uid}:${gid}::${home}:${shell}\n`);
  if (existsSync(join(root, 'etc/shadow')) && !has(join(root, 'etc/shadow')))
    appendFileSync(join(root, 'etc/shadow'), `${name}:*:0:0:99999:7:::\n`);
  mkdirSync(join(root, home.slice(1)), { recursive: true });
  chownSync(join(root, home.slice(1)), uid, gid);
}

/** Each workspace package packed once per build run, after checking it is built. */
export class Packs {
  readonly #dir: string;
  readonly #log: (line: string) => void;
  readonly #done = new Map<string, string>();

  constructor(dir: string, log: (line: string) => void) {
    this.#dir = dir;
    this.#log = log;
  }

  tarball(name: string): string {
    const known = this.#done.get(name);
    if (known) return known;
    const pkg = publishablePackages().find((p) => p.manifest.name === name);
    if (!pkg) throw new Error(`${name} is not a publishable workspace package`);
    const missing = missingBuildOutput(pkg);
    if (missing.length)
      throw new Error(`${name} is not built (${missing.join(', ')}): run \`npx nx run-many -t build\` first`);
    mkdirSync(this.#dir, { recursive: true });
    const r = npmPack(pkg, { destination: this.#dir });
    this.#log(`packed ${r.name}@${r.version}`);
    const file = join(this.#dir, r.filename);
    this.#done.set(name, file);
    return file;
  }
}

function run(cmd: string, args: readonly string[]): void {
  const r = runSync([cmd, ...args], { timeoutMs: 300_000 });
  if (r.exitCode !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.exitCode}): ${r.stderr}`);
}
