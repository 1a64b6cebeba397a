import { createRequire, type default as Module } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';

/**
 * @kubernetes/client-node, loaded on first use, and without its generated API where Node allows.
 *
 * Its package root loads every generated API client and model (most of a program's resident memory
 * at start: docs/PERFORMANCE.md), which a program reading a file (`--file`) or a core's stream
 * (`--connect`) never needs, and which the kube source needs none of either: it uses `KubeConfig`
 * (auth, TLS, proxies), imported from its own module in `dist` (the package has no `exports` map,
 * so the path is importable; its `Watch` and `ListWatch` are replaced by `informer.ts`, and the
 * redirect of `cache.js` below stays for any later user of it). Two modules still import
 * the generated code for a sliver of it:
 * - `config.js` imports `createConfiguration` and `ServerConfiguration` from `gen/index.js` (for
 *   `makeApiClient`) and with them every model and API class;
 * - `cache.js` (`ListWatch`) imports `ObjectSerializer` from `serializer.js`, which loads every
 *   model, to "serialize" its label and field selectors, strings that serialize to themselves.
 * A module resolution hook sends exactly those two imports of exactly those two modules to
 * modules exporting the same things: `createConfiguration` and `ServerConfiguration` from the very
 * `gen` files that define them (so `makeApiClient` still works, and a later import of the package
 * root shares them), and a serializer of strings. `client-node.test.ts` checks that the two modules
 * still import only those names, and use the serializer only for strings.
 *
 * The hook needs `module.registerHooks` (in-thread and synchronous: Node >= 22.15 and 23.5; the
 * images run Node 24). On older Node the modules load whole, as before. Node 20's asynchronous
 * `module.register` runs its hooks on a thread of their own (memory of its own) and not for `require`.
 */

type ResolveContext = { readonly parentURL?: string | undefined };
type ResolveResult = { readonly url: string; readonly shortCircuit?: boolean };
type NextResolve = (specifier: string, context: ResolveContext) => ResolveResult;
type ResolveHook = (specifier: string, context: ResolveContext, nextResolve: NextResolve) => ResolveResult;
type RegisterHooks = (hooks: { resolve: ResolveHook }) => unknown;

const require = createRequire(import.meta.url);

/** `file:` URL of client-node's `dist/` directory (its `main` is `dist/index.js`). */
export const CLIENT_NODE_DIST = new URL('./', pathToFileURL(require.resolve('@kubernetes/client-node'))).href;

/** What `cache.js` gets for `serializer.js`: its only use is `ObjectSerializer.serialize(selector, 'string')`. */
const STRING_SERIALIZER = `export const ObjectSerializer = {
  serialize(data, type) {
    if (type !== 'string') throw new Error('kpng: client-node serialized a ' + type + ', not a string (see client-node.ts)');
    return data;
  },
};`;

function dataModule(source: string): string {
  return `data:text/javascript,${encodeURIComponent(source)}`;
}

/** parent module URL + NUL + specifier -> the module it gets instead. */
export function clientNodeRedirects(dist: string = CLIENT_NODE_DIST): ReadonlyMap<string, string> {
  return new Map([
    [
      `${dist}config.js\0./gen/index.js`,
      dataModule(
        `export { createConfiguration } from '${dist}gen/configuration.js';\nexport { ServerConfiguration } from '${dist}gen/servers.js';`,
      ),
    ],
    [`${dist}cache.js\0./serializer.js`, dataModule(STRING_SERIALIZER)],
  ]);
}

/** The resolve hook: the redirects above, everything else untouched. */
export function slimResolveHook(redirects: ReadonlyMap<string, string>): ResolveHook {
  return (specifier, context, nextResolve) => {
    const to = context.parentURL === undefined ? undefined : redirects.get(`${context.parentURL}\0${specifier}`);
    return to === undefined ? nextResolve(specifier, context) : { url: to, shortCircuit: true };
  };
}

let hooked: boolean | undefined;

/**
 * Installs the hook once, before any client-node module loads; true when it is in place (false:
 * this Node has no `registerHooks`). Every loader of client-node's modules calls this first.
 */
export function slimClientNode(): boolean {
  if (hooked !== undefined) return hooked;
  const registerHooks = (require('node:module') as typeof Module & { registerHooks?: RegisterHooks }).registerHooks;
  hooked = typeof registerHooks === 'function';
  if (registerHooks) registerHooks({ resolve: slimResolveHook(clientNodeRedirects()) });
  return hooked;
}

/**
 * client-node's `KubeConfig` module. Synchronous (`require` of an ES module, Node >= 20.19) so
 * that `loadKubeConfig` stays a plain function; the rest of the kube source loads its client-node
 * modules with `import()` when it starts, after `slimClientNode()`.
 */
export function clientNodeConfig(): { readonly KubeConfig: typeof KubeConfig } {
  slimClientNode();
  return require('@kubernetes/client-node/dist/config.js') as { readonly KubeConfig: typeof KubeConfig };
}
