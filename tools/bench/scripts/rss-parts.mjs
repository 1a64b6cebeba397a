// The compat kube-proxy's resident memory by part, in one fresh process (started with --expose-gc
// by the startup suite): argv = the compiled copy's root (holding node_modules/@kpng/*), the
// scenario's JSON file, the network namespace to program, the bench node's name. Prints one JSON
// line: RSS after a full garbage collection at each step, in bytes:
//   node     this script alone (a bare node);
//   modules  + what nftables mode loads (kube-proxy's run.js and run/mode-nftables.js: core's
//            runtime, the API client, the nft backend);
//   model    + the scenario converted by core's converters into a NodeView, and its node-local
//            state computed (the raw objects dropped);
//   backend  + the nft backend's state after its first full sync of that state into the namespace.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [root, scenarioFile, netns, benchNode] = process.argv.slice(2);
const load = (path) => import(pathToFileURL(join(root, 'node_modules', path)).href);
const rss = () => {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().rss;
};
const figures = { node: rss() };

await load('@kpng/kube-proxy/dist/cli/run.js');
await load('@kpng/kube-proxy/dist/run/mode-nftables.js');
const core = await load('@kpng/core/dist/public/index.js');
const runtime = await load('@kpng/core/dist/public/runtime.js');
const { NftBackend } = await load('@kpng/nft/dist/public/index.js');
figures.modules = rss();

// `Core` before the node-view stage was renamed (an older revision through --sources).
const view = new (runtime.NodeView ?? runtime.Core)({ nodeName: core.nodeName(benchNode) });
{
  const scenario = JSON.parse(readFileSync(scenarioFile, 'utf8'));
  const events = [];
  for (const obj of scenario.services) {
    const c = runtime.convertService(obj);
    if (c.ok && c.value)
      events.push({
        kind: 'Service',
        op: 'upsert',
        key: core.serviceKey(c.value.namespace, c.value.name),
        object: c.value,
      });
  }
  for (const obj of scenario.endpointSlices) {
    const c = runtime.convertEndpointSlice(obj);
    if (c.ok && c.value.slice)
      events.push({
        kind: 'EndpointSlice',
        op: 'upsert',
        key: core.sliceKey(c.value.slice.namespace, c.value.slice.name),
        object: c.value.slice,
      });
  }
  for (const obj of scenario.nodes) {
    const c = runtime.convertNode(obj);
    if (c.ok) events.push({ kind: 'Node', op: 'upsert', key: core.nodeName(c.value.name), object: c.value });
  }
  view.model.apply(events);
}
const state = await new Promise((resolve) => {
  view.addLocalConsumer({ publish: (s) => resolve(s) });
  for (const kind of ['Service', 'EndpointSlice', 'Node']) view.model.synced(kind);
});
figures.model = rss();

const backend = new NftBackend({ netns, conntrack: false });
try {
  await backend.setup();
  await backend.sync({ state, changes: { triggerTimes: new Map(), nodeChanged: true }, full: true, revision: 1 });
  figures.backend = rss();
} finally {
  await backend.cleanup().catch(() => undefined);
  await backend.close();
}
// The model stays reachable through the measurements above (the NodeView holds it).
if (view.model === undefined) throw new Error('no model');
process.stdout.write(`${JSON.stringify(figures)}\n`);
