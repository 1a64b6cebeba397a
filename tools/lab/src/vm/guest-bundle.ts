import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'rolldown';

export interface GuestBundleOptions {
  /** The script's entry: a TypeScript or JavaScript file (workspace packages resolve to their sources). */
  readonly entry: string;
  /** The folder the bundle goes to (emptied first); under a package's `.cache/`, so that node_modules resolve from there. */
  readonly dir: string;
  /** The bundle's file name in `dir`. */
  readonly name: string;
  /** Imports left to node at run time, besides `node:` builtins (native addons: koffi). */
  readonly external?: readonly RegExp[];
}

const VITEST = /^vitest(\/|$)/;

/**
 * Bundles a script for the lab's VM into one ES module file, to be run by plain `node` there
 * (`runScriptInVm`): under the VM's emulated CPU, resolving and reading a few hundred modules over
 * 9p and transforming TypeScript cost more than the cases they run. Workspace packages resolve to
 * their TypeScript sources (the `@kpng/source` condition, as under vitest: no build needed). Each
 * module keeps its own `import.meta.url` (and `dirname`, `filename`): files found beside a module
 * (BPF objects, the lab's helper scripts, fixtures) are found at the same host paths the guest
 * sees. Returns the bundle's path and how long bundling took.
 */
export async function bundleForGuest(options: GuestBundleOptions): Promise<{ path: string; ms: number }> {
  const started = Date.now();
  if (!existsSync(options.entry)) throw new Error(`${options.entry} is missing`);
  // Loaded here, not with the lab: only the suites that bundle need the bundler.
  const { rolldown } = await import('rolldown');
  const build = await rolldown({
    input: options.entry,
    platform: 'node',
    resolve: {
      conditionNames: ['@kpng/source', 'node', 'import', 'default'],
      // The sources import each other as `./x.js` (NodeNext): `x.ts` on disk.
      extensionAlias: { '.js': ['.ts', '.js'] },
    },
    // vitest too: the lab's entry re-exports its vitest-based case helpers (behaviours), which a
    // guest script does not call; left without side effects, their unused import is dropped (a script
    // that called them would import vitest in the guest and fail there, loudly).
    external: [/^node:/, VITEST, ...(options.external ?? [])],
    treeshake: { moduleSideEffects: (id, external) => (external && VITEST.test(id) ? false : undefined) },
    plugins: [ownImportMeta()],
    logLevel: 'silent',
  });
  try {
    await build.write({
      dir: options.dir,
      format: 'esm',
      entryFileNames: options.name,
      chunkFileNames: '[name]-[hash].mjs',
      cleanDir: true,
    });
  } finally {
    await build.close();
  }
  return { path: `${options.dir.replace(/\/$/, '')}/${options.name}`, ms: Date.now() - started };
}

/** `import.meta.url`, `.dirname` and `.filename` as the module's own file's, written in as literals. */
function ownImportMeta(): Plugin {
  return {
    name: 'kpng-own-import-meta',
    transform(code, id) {
      if (!id.startsWith('/') || !code.includes('import.meta.')) return null;
      const dirname = id.slice(0, id.lastIndexOf('/')) || '/';
      return code
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(id).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname))
        .replaceAll('import.meta.filename', JSON.stringify(id));
    },
  };
}
