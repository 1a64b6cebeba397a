// kpng-ipvs for the VM's guest as one ES module file, bundled on the host before the boot.
//
// Why: under the VM's emulated CPU (TCG) loading the compiled program's ~315 modules took 3.4-5.3 s
// of a 15.8 s start (one vCPU, host load ~2), and 9.7 s with the CPU profiler, most of it resolving
// and reading files over 9p (stat, realpath, package scopes), not compiling. The same code as one
// file loads in ~0.1-0.2 s on top of Node's own ~1.1 s. What runs is the compiled `dist/cli/main.js`
// (the shipped program) and everything it imports, unchanged; only the module layout differs.
//
// Kept out of the bundle and resolved from node_modules at run time: koffi (a native addon),
// client-node and gRPC (the kube and stream sources load them lazily; core's resolve hook trims
// client-node where Node allows), and Node's builtins.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';
import { BUNDLE_DIR, BUNDLE_RUNNER } from './bundle-paths.js';

const PACKAGE = new URL('../', import.meta.url);

/**
 * The runner imports the bundle and calls its `main`. Not the bundle itself as the script: every
 * bin in it (kpng-ipvs's, and kpng-nft's, which `@kpng/nft`'s entry brings along) starts itself when
 * `process.argv[1]` is its module's file, and in one file they all share that name.
 */
const RUNNER = `const { main } = await import('./kpng-ipvs.mjs');
process.exit(await main(process.argv.slice(2)));
`;

/** Bundles `dist/cli/main.js` (build first) into {@link BUNDLE_DIR}; returns the runner's path and how long it took. */
export async function bundleKpngIpvs(): Promise<{ runner: string; ms: number }> {
  const started = Date.now();
  const build = await rolldown({
    input: fileURLToPath(new URL('dist/cli/main.js', PACKAGE)),
    platform: 'node',
    external: [/^koffi(\/|$)/, /^@kubernetes\/client-node(\/|$)/, /^@grpc\//, /^node:/],
    logLevel: 'silent',
  });
  try {
    await build.write({
      dir: BUNDLE_DIR,
      format: 'esm',
      entryFileNames: 'kpng-ipvs.mjs',
      chunkFileNames: '[name]-[hash].mjs',
      cleanDir: true,
    });
  } finally {
    await build.close();
  }
  writeFileSync(BUNDLE_RUNNER, RUNNER);
  return { runner: BUNDLE_RUNNER, ms: Date.now() - started };
}
