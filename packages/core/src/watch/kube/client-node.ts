import { createRequire } from 'node:module';
import type * as ClientNode from '@kubernetes/client-node';

let loaded: typeof ClientNode | undefined;

/**
 * @kubernetes/client-node, loaded on first use: importing it costs ~65-80 MiB of resident memory
 * (its generated API clients and models), which a program reading a file (`--file`) or a core's
 * stream (`--connect`) never needs. Synchronous (`require` of an ES module, Node >= 20.19) so that
 * `loadKubeConfig` stays a plain function; the rest of the kube source loads its client-node
 * modules with `import()` when it starts.
 */
export function clientNode(): typeof ClientNode {
  loaded ??= createRequire(import.meta.url)('@kubernetes/client-node') as typeof ClientNode;
  return loaded;
}
