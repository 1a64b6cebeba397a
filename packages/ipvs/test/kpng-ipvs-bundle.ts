// kpng-ipvs and the compat `kube-proxy` (which runs @kpng/ipvs in-process with `--proxy-mode ipvs`)
// for the VM's guest, each as one ES module file, bundled on the host before the boot.
//
// Why: under the VM's emulated CPU (TCG) loading the compiled program's ~315 modules took 3.4-5.3 s
// of a 15.8 s start (one vCPU, host load ~2), and 9.7 s with the CPU profiler, most of it resolving
// and reading files over 9p (stat, realpath, package scopes), not compiling. The same code as one
// file loads in ~0.1-0.2 s on top of Node's own ~1.1 s. What runs is the compiled `dist/cli/main.js`
// (the shipped program) and everything it imports, unchanged; only the module layout differs. The
// same for packages/kube-proxy's `dist/cli/main.js` (build first: `npx nx run-many -t build`).
//
// Kept out of the bundle and resolved from node_modules at run time: koffi (a native addon),
// client-node and gRPC (the kube and stream sources load them lazily; core's resolve hook trims
// client-node where Node allows), and Node's builtins.
//
// client-node itself is bundled too, apart (`bundleClientNode`): on Node 20 (CI's first pass, whose
// node the guest runs) core's resolve hook is not there, and its `dist/config.js` loads the whole
// generated API, ~900 modules: over 9p under emulation that was most of the ~130-150 s the compat
// `kube-proxy explain` took to start in the swap cell, and part of each start with a kubeconfig. The
// same modules as one file sit in a package folder of their own where Node's resolution from both
// bundles looks first, so the programs' own `import`/`require` of client-node finds them unchanged.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown, type InputOption } from 'rolldown';
import {
  BUNDLE_DIR,
  BUNDLE_RUNNER,
  CLIENT_NODE_BUNDLE_DIR,
  KUBE_PROXY_BUNDLE_DIR,
  KUBE_PROXY_RUNNER,
} from './bundle-paths.js';

const PACKAGE = new URL('../', import.meta.url);
/** The compat kube-proxy's package, beside this one in the workspace (not a dependency: it depends on this package). */
const KUBE_PROXY_PACKAGE = new URL('../../kube-proxy/', import.meta.url);

/**
 * The runner imports the bundle and calls its `main`. Not the bundle itself as the script: every
 * bin in it (kpng-ipvs's; in kube-proxy's, also kpng-nft's and kube-proxy's own) starts itself when `process.argv[1]` is its module's file, and in one file
 * they all share that name.
 */
const runner = (bundle: string): string => `const { main } = await import('./${bundle}');
process.exit(await main(process.argv.slice(2)));
`;

/** Bundles one compiled program's entry point into `dir` as `name`, with its runner at `runnerPath`. */
async function bundle(entry: URL, dir: string, name: string, runnerPath: string): Promise<void> {
  const input = fileURLToPath(entry);
  if (!existsSync(input)) throw new Error(`${input} is missing: build first (npx nx run-many -t build)`);
  await write(input, [/^koffi(\/|$)/, /^@kubernetes\/client-node(\/|$)/, /^@grpc\//], {
    dir,
    entryFileNames: name,
    chunkFileNames: '[name]-[hash].mjs',
  });
  writeFileSync(runnerPath, runner(name));
}

/** One rolldown build of `input` for Node (builtins and `external` left out) written as ES modules into `output.dir`, emptied first. */
async function write(
  input: InputOption,
  external: RegExp[],
  output: { dir: string; entryFileNames: string; chunkFileNames: string },
): Promise<void> {
  const build = await rolldown({ input, platform: 'node', external: [...external, /^node:/], logLevel: 'silent' });
  try {
    await build.write({ ...output, format: 'esm', cleanDir: true });
  } finally {
    await build.close();
  }
}

/** Bundles `dist/cli/main.js` (build first) into {@link BUNDLE_DIR}; returns the runner's path and how long it took. */
export async function bundleKpngIpvs(): Promise<{ runner: string; ms: number }> {
  const started = Date.now();
  await bundle(new URL('dist/cli/main.js', PACKAGE), BUNDLE_DIR, 'kpng-ipvs.mjs', BUNDLE_RUNNER);
  return { runner: BUNDLE_RUNNER, ms: Date.now() - started };
}

/**
 * Bundles the compat kube-proxy's `dist/cli/main.js` (build first) into {@link KUBE_PROXY_BUNDLE_DIR}
 * `dist/cli/`, under a copy of its package.json (its version); after {@link bundleKpngIpvs}, which
 * empties {@link BUNDLE_DIR}. Returns the runner's path and how long it took.
 */
export async function bundleKubeProxy(): Promise<{ runner: string; ms: number }> {
  const started = Date.now();
  const dir = `${KUBE_PROXY_BUNDLE_DIR}dist/cli/`;
  mkdirSync(dir, { recursive: true });
  await bundle(new URL('dist/cli/main.js', KUBE_PROXY_PACKAGE), dir, 'kube-proxy.mjs', KUBE_PROXY_RUNNER);
  copyFileSync(fileURLToPath(new URL('package.json', KUBE_PROXY_PACKAGE)), `${KUBE_PROXY_BUNDLE_DIR}package.json`);
  return { runner: KUBE_PROXY_RUNNER, ms: Date.now() - started };
}

/**
 * Bundles @kubernetes/client-node's package root and its `dist/config.js` (the two modules kpng
 * loads: `require.resolve` of the root, `KubeConfig` from `config.js`) with everything they import
 * into {@link CLIENT_NODE_BUNDLE_DIR}`dist/`, under a package.json naming the same version; after
 * {@link bundleKpngIpvs}, which empties {@link BUNDLE_DIR}. Returns the folder and how long it took.
 */
export async function bundleClientNode(): Promise<{ runner: string; ms: number }> {
  const started = Date.now();
  // Resolved as the compat kube-proxy resolves it (the workspace's copy).
  const require = createRequire(new URL('package.json', KUBE_PROXY_PACKAGE));
  const dist = dirname(require.resolve('@kubernetes/client-node'));
  const { version } = JSON.parse(readFileSync(`${dist}/../package.json`, 'utf8')) as { version: string };
  await write({ index: `${dist}/index.js`, config: `${dist}/config.js` }, [], {
    dir: `${CLIENT_NODE_BUNDLE_DIR}dist`,
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
  });
  writeFileSync(
    `${CLIENT_NODE_BUNDLE_DIR}package.json`,
    `${JSON.stringify({ name: '@kubernetes/client-node', version, type: 'module', main: 'dist/index.js' }, null, 2)}\n`,
  );
  return { runner: CLIENT_NODE_BUNDLE_DIR, ms: Date.now() - started };
}
