// A floor under the compat kube-proxy's start, in a fresh process (the startup suite runs it
// against bare `node -e 0`): argv = the compiled copy's root (holding node_modules/@kpng/*), then
// what to load:
//   kubeconfig  client-node's KubeConfig as core loads it (watch/kube/client-node.js: the slim hook
//               on Node >= 22.15, the whole package before): what any start pays to reach an API
//               server with a kubeconfig's auth and TLS;
//   modules     every module nftables mode loads before its informers start (kube-proxy's run.js and
//               run/mode-nftables.js, client-node's KubeConfig, the kube source's informer), none run;
//   bundled     the same modules as one rolldown bundle (startup.suite.ts `bundleFloor`: one file per
//               entry below and the chunks they share, in @kpng/kube-proxy/dist/floor-bundle/; what
//               bundling the images' programs would load instead), loaded in the same order.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [root, what] = process.argv.slice(2);
const load = (path) => import(pathToFileURL(join(root, 'node_modules', path)).href);
const bundle = (name) => load(`@kpng/kube-proxy/dist/floor-bundle/${name}.mjs`);
if (!['kubeconfig', 'modules', 'bundled'].includes(what)) throw new Error(`unknown floor ${what}`);
if (what === 'modules') {
  await load('@kpng/kube-proxy/dist/cli/run.js');
  await load('@kpng/kube-proxy/dist/run/mode-nftables.js');
}
if (what === 'bundled') {
  await bundle('run');
  await bundle('mode-nftables');
}
(
  await (what === 'bundled' ? bundle('client-node') : load('@kpng/core/dist/watch/kube/client-node.js'))
).clientNodeConfig();
if (what === 'modules') {
  await load('@kpng/core/dist/watch/kube/informer.js');
  await load('@kpng/core/dist/watch/kube/instrumented-kubeconfig.js');
}
if (what === 'bundled') {
  await bundle('informer');
  await bundle('instrumented-kubeconfig');
}
