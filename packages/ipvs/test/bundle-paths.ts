import { fileURLToPath } from 'node:url';

/**
 * Where test/kpng-ipvs-bundle.ts puts kpng-ipvs for the VM (the guest reads it over the host share).
 * Two levels under the package, like `dist/cli/main.js`: the program reads `../../package.json`
 * relative to its module (its name and version). Under `.cache/`, which git, lint and prettier ignore.
 * Its own file: the guest needs the paths, not the bundler.
 */
export const BUNDLE_DIR = fileURLToPath(new URL('../.cache/vm/', import.meta.url));
/** What the guest runs: `node <BUNDLE_RUNNER> [flags]`. */
export const BUNDLE_RUNNER = `${BUNDLE_DIR}run.mjs`;
