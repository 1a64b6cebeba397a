// The lab's fake API server for an image's smoke run, started by the test *inside* the test's
// network namespace (so the chrooted program reaches it on that namespace's 127.0.0.1):
//   node apiserver.mjs MANIFEST KUBECONFIG_OUT
// serves every object of MANIFEST, writes a kubeconfig for it, prints "serving <url>", runs until killed.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { FakeApiServer, kubeconfigYaml } from '@kpng/lab';

const [manifest, kubeconfig] = process.argv.slice(2);
if (!manifest || !kubeconfig) throw new Error('usage: apiserver.mjs MANIFEST KUBECONFIG_OUT');
const server = await FakeApiServer.start();
for (const doc of parseAllDocuments(readFileSync(manifest, 'utf8'))) {
  const obj = doc.toJS();
  if (obj) server.create(obj);
}
writeFileSync(kubeconfig, kubeconfigYaml(server.url), { mode: 0o600 });
console.log(`serving ${server.url}`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
setInterval(() => {}, 1 << 30);
