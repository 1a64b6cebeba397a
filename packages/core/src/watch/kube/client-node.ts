import { createRequire, type default as Module } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
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
 * modules exporting the same things: stand-ins for `createConfiguration` and `ServerConfiguration`
 * that load the very `gen` files defining them on their first call or `new` (`makeApiClient`, their
 * only use, still works, and a later import of the package root shares the real ones), and a
 * serializer of strings. Those two `gen` files alone loaded `node-fetch` with `whatwg-url`, `tr46`
 * and `webidl-conversions` and the generated client's middleware and auth: 16 of the 27 modules and
 * ~360 of the ~510 KB `KubeConfig` loaded, none of it used by kpng, which makes no API client.
 * `client-node.test.ts` checks that the two modules still import only those names (`config.js`
 * using them inside functions only), and use the serializer only for strings.
 *
 * The same hook defers what only some kubeconfigs use (`LAZY_IMPORTS`): OpenID Connect refreshes
 * (`openid-client` with `oauth4webapi` and `jose`), a SOCKS proxy (`socks-proxy-agent`, `socks`,
 * `ip-address`), `applyToFetchOptions`'s `Headers` (`node-fetch`, `whatwg-url`, `tr46`: kpng's
 * requests use `applyToHTTPSOptions`) and the jsonpath of the gcp/azure auth providers
 * (`jsonpath-plus`): ~700 KB of source, about half of what loading `KubeConfig` evaluated. Each of
 * those imports gets a stand-in exporting the same names, which loads the real module (the very
 * file the import resolved to) with `require` on its first call or `new`.
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
      lazyModuleOf([
        [`${dist}gen/configuration.js`, ['createConfiguration']],
        [`${dist}gen/servers.js`, ['ServerConfiguration']],
      ]),
    ],
    [`${dist}cache.js\0./serializer.js`, dataModule(STRING_SERIALIZER)],
  ]);
}

/**
 * client-node module + NUL + specifier -> the names it imports from there, each used only inside a
 * function that runs for some kubeconfigs (`client-node.test.ts` checks the names and the uses).
 */
export const LAZY_IMPORTS: ReadonlyMap<string, readonly string[]> = new Map([
  ['oidc_auth.js\0openid-client', ['discovery', 'refreshTokenGrant']],
  ['config.js\0socks-proxy-agent', ['SocksProxyAgent']],
  ['config.js\0node-fetch', ['Headers']],
  ['gcp_auth.js\0jsonpath-plus', ['JSONPath']],
  ['azure_auth.js\0jsonpath-plus', ['JSONPath']],
]);

/**
 * A module exporting `names`, each loading the module at `url` (a `file:` URL) with `require` when
 * first called or constructed, and handing the call on: `new X(...)` constructs the real `X`.
 */
export function lazyModule(url: string, names: readonly string[]): string {
  return lazyModuleOf([[url, names]]);
}

/** {@link lazyModule} over several modules: each `[url, names]` loaded on the first use of one of its names. */
export function lazyModuleOf(sources: ReadonlyArray<readonly [url: string, names: readonly string[]]>): string {
  const lines = [`import { createRequire } from 'node:module';`];
  sources.forEach(([url, names], i) => {
    const path = fileURLToPath(url);
    lines.push(
      `let real${i};`,
      `const load${i} = () => (real${i} ??= createRequire(${JSON.stringify(url)})(${JSON.stringify(path)}));`,
      ...names.map(
        (name) =>
          `export function ${name}(...args) { const f = load${i}()[${JSON.stringify(name)}]; return new.target ? new f(...args) : f(...args); }`,
      ),
    );
  });
  return dataModule(lines.join('\n'));
}

/** The resolve hook: the redirects above, the lazy imports' stand-ins, everything else untouched. */
export function slimResolveHook(
  redirects: ReadonlyMap<string, string>,
  lazy: ReadonlyMap<string, readonly string[]> = new Map(),
  dist: string = CLIENT_NODE_DIST,
): ResolveHook {
  return (specifier, context, nextResolve) => {
    const parent = context.parentURL;
    if (parent === undefined) return nextResolve(specifier, context);
    const to = redirects.get(`${parent}\0${specifier}`);
    if (to !== undefined) return { url: to, shortCircuit: true };
    const names = parent.startsWith(dist) ? lazy.get(`${parent.slice(dist.length)}\0${specifier}`) : undefined;
    if (names === undefined) return nextResolve(specifier, context);
    const real = nextResolve(specifier, context);
    if (!real.url.startsWith('file:')) return real;
    return { url: lazyModule(real.url, names), shortCircuit: true };
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
  if (registerHooks) registerHooks({ resolve: slimResolveHook(clientNodeRedirects(), LAZY_IMPORTS) });
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
