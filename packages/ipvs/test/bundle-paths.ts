import { fileURLToPath } from 'node:url';

/**
 * Where test/kpng-ipvs-bundle.ts puts the programs for the VM (the guest reads them over the host
 * share). Each bundle sits two levels under the package whose `package.json` it reads (both programs
 * read `../../package.json` relative to their module: name and version, as `dist/cli/main.js`
 * does). Under `.cache/`, which git, lint and prettier ignore. Its own file: the guest needs the
 * paths, not the bundler.
 */
export const BUNDLE_DIR = fileURLToPath(new URL('../.cache/vm/', import.meta.url));
/** What the guest runs for kpng-ipvs: `node <BUNDLE_RUNNER> [flags]`. */
export const BUNDLE_RUNNER = `${BUNDLE_DIR}run.mjs`;
/**
 * The compat `kube-proxy` (packages/kube-proxy's `dist/cli/main.js`), bundled into
 * `<BUNDLE_DIR>kube-proxy/dist/cli/`, with a copy of its package.json at `<BUNDLE_DIR>kube-proxy/`:
 * the package's own layout.
 */
export const KUBE_PROXY_BUNDLE_DIR = `${BUNDLE_DIR}kube-proxy/`;
/** What the guest runs for the compat kube-proxy: `node <KUBE_PROXY_RUNNER> [flags]`. */
export const KUBE_PROXY_RUNNER = `${KUBE_PROXY_BUNDLE_DIR}dist/cli/run.mjs`;
/**
 * @kubernetes/client-node for both programs in the guest (test/kpng-ipvs-bundle.ts's `bundleClientNode`):
 * a package folder where Node's resolution from either bundle looks first (`<BUNDLE_DIR>node_modules/`).
 */
export const CLIENT_NODE_BUNDLE_DIR = `${BUNDLE_DIR}node_modules/@kubernetes/client-node/`;
