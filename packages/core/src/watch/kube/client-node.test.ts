import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CLIENT_NODE_DIST,
  clientNodeConfig,
  clientNodeRedirects,
  LAZY_IMPORTS,
  lazyModule,
  slimClientNode,
  slimResolveHook,
} from './client-node.js';

const source = (file: string) => readFileSync(fileURLToPath(new URL(file, CLIENT_NODE_DIST)), 'utf8');

/** The names `file` imports from `specifier` (`import { a, b as c } from '<specifier>'`). */
function importedNames(file: string, specifier: string): string[] {
  const escaped = specifier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const found = [...source(file).matchAll(new RegExp(`import\\s*\\{([^}]*)\\}\\s*from\\s*['"]${escaped}['"]`, 'g'))];
  return found
    .flatMap((m) => (m[1] ?? '').split(','))
    .map((name) => name.trim().split(/\s+as\s+/)[0] ?? '')
    .filter((name) => name !== '')
    .sort();
}

const redirects = clientNodeRedirects();
const redirectOf = (parent: string, specifier: string) => redirects.get(`${CLIENT_NODE_DIST}${parent}\0${specifier}`);

// What the redirects stand in for: if a client-node update imports more of these, the slim
// modules lack it and the program would fail to link at start; this says so first.
describe('what client-node imports through the redirected modules', () => {
  it.each([
    { file: 'config.js', specifier: './gen/index.js', names: ['ServerConfiguration', 'createConfiguration'] },
    { file: 'cache.js', specifier: './serializer.js', names: ['ObjectSerializer'] },
  ])('$file imports only $names from $specifier', ({ file, specifier, names }) => {
    expect(importedNames(file, specifier)).toEqual(names);
  });

  // A stand-in loads the real module when one of its names is first called: a name used at a
  // module's top level would load it at once (no harm, no gain); a name not listed would fail to link.
  it.each(
    [...LAZY_IMPORTS].map(([key, names]) => ({ file: key.split('\0')[0]!, specifier: key.split('\0')[1]!, names })),
  )('$file imports only $names from $specifier, and uses them inside functions only', ({ file, specifier, names }) => {
    const text = source(file);
    const escaped = specifier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const star = new RegExp(`import\\s*\\*\\s*as\\s+(\\w+)\\s+from\\s*['"]${escaped}['"]`).exec(text)?.[1];
    const used =
      star === undefined
        ? importedNames(file, specifier)
        : [...new Set([...text.matchAll(new RegExp(`\\b${star}\\.(\\w+)`, 'g'))].map((m) => m[1]!))].sort();
    expect(used).toEqual(names);
    // Every line naming them (but the import) is indented: inside a class or function body.
    for (const line of text.split('\n'))
      if (!line.startsWith('import') && names.some((n) => new RegExp(`\\b${n}\\b`).test(line)))
        expect([line, /^\s/.test(line)]).toEqual([line, true]);
  });

  // The stand-ins load the generated API's configuration on their first call or `new`.
  it('config.js uses createConfiguration and ServerConfiguration inside functions only (makeApiClient)', () => {
    for (const line of source('config.js').split('\n'))
      if (!line.startsWith('import') && /\b(createConfiguration|ServerConfiguration)\b/.test(line))
        expect([line, /^\s/.test(line)]).toEqual([line, true]);
  });

  it('cache.js serializes strings only', () => {
    const uses = [...source('cache.js').matchAll(/ObjectSerializer\.(\w+)\(([^)]*)\)/g)];
    expect(uses.length).toBeGreaterThan(0);
    for (const [, method, args] of uses) {
      expect(method).toBe('serialize');
      expect(args).toMatch(/,\s*'string'$/);
    }
  });
});

describe('the slim modules', () => {
  it("stand in for the generated API's createConfiguration and ServerConfiguration, handing calls and `new` to them", async () => {
    type Server = { makeRequestContext(path: string, method: string): { getUrl(): string } };
    const slim = (await import(redirectOf('config.js', './gen/index.js')!)) as {
      createConfiguration: (options: { baseServer: Server }) => { baseServer: Server };
      ServerConfiguration: new (url: string, variables: object) => Server;
    };
    const full = (await import(`${CLIENT_NODE_DIST}gen/index.js`)) as {
      ServerConfiguration: new (url: string, variables: object) => Server;
    };
    expect(Object.keys(slim).sort()).toEqual(['ServerConfiguration', 'createConfiguration']);
    const server = new slim.ServerConfiguration('https://127.0.0.1:6443', {});
    expect(server).toBeInstanceOf(full.ServerConfiguration);
    expect(server.makeRequestContext('/api/v1/pods', 'GET').getUrl()).toBe('https://127.0.0.1:6443/api/v1/pods');
    expect(slim.createConfiguration({ baseServer: server }).baseServer).toBe(server);
  });

  it('serialize a string as itself, and refuse anything else', async () => {
    const { ObjectSerializer } = (await import(redirectOf('cache.js', './serializer.js')!)) as {
      ObjectSerializer: { serialize(data: unknown, type: string): unknown };
    };
    expect(ObjectSerializer.serialize('app=x,!service.kubernetes.io/headless', 'string')).toBe(
      'app=x,!service.kubernetes.io/headless',
    );
    expect(() => ObjectSerializer.serialize({}, 'V1ObjectMeta')).toThrow(/V1ObjectMeta, not a string/);
  });
});

describe('lazyModule', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kpng-lazy-'));
  const file = join(dir, 'real.mjs');
  writeFileSync(
    file,
    `globalThis.kpngLazyLoads = (globalThis.kpngLazyLoads ?? 0) + 1;
export class Thing { constructor(v) { this.v = v; } }
export function twice(x) { return 2 * x; }`,
  );
  const url = pathToFileURL(file).href;

  it('loads the real module on first use, once; calls and constructs through it', async () => {
    const g = globalThis as { kpngLazyLoads?: number };
    const stand = (await import(lazyModule(url, ['Thing', 'twice']))) as {
      Thing: new (v: number) => { v: number; constructor: { name: string } };
      twice: (x: number) => number;
    };
    expect(g.kpngLazyLoads).toBeUndefined(); // importing the stand-in loads nothing
    expect(stand.twice(21)).toBe(42);
    expect(g.kpngLazyLoads).toBe(1);
    const thing = new stand.Thing(7);
    expect([thing.constructor.name, thing.v]).toEqual(['Thing', 7]);
    expect(g.kpngLazyLoads).toBe(1);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('slimResolveHook', () => {
  const hook = slimResolveHook(redirects);
  const next = (specifier: string) => ({ url: `next:${specifier}` });
  it.each([
    { parent: 'config.js', specifier: './gen/index.js', redirected: true },
    { parent: 'cache.js', specifier: './serializer.js', redirected: true },
    // the package root imports both in full: a program that asks for it gets it whole
    { parent: 'index.js', specifier: './gen/index.js', redirected: false },
    { parent: 'index.js', specifier: './serializer.js', redirected: false },
    { parent: 'config.js', specifier: './config_types.js', redirected: false },
  ])('$parent importing $specifier: redirected $redirected', ({ parent, specifier, redirected }) => {
    const result = hook(specifier, { parentURL: `${CLIENT_NODE_DIST}${parent}` }, next);
    if (redirected) expect(result).toEqual({ url: redirectOf(parent, specifier), shortCircuit: true });
    else expect(result).toEqual({ url: `next:${specifier}` });
  });

  it('leaves an entry point (no parent) alone', () => {
    expect(hook('./gen/index.js', {}, next)).toEqual({ url: 'next:./gen/index.js' });
  });
});

type Resolved = { url: string };
type RegisterHooks = (hooks: {
  resolve(specifier: string, context: { parentURL?: string }, next: (s: string, c: unknown) => Resolved): Resolved;
}) => unknown;
const registerHooks = (createRequire(import.meta.url)('node:module') as { registerHooks?: RegisterHooks })
  .registerHooks;

describe('loading KubeConfig', () => {
  // One case per Node line, named for what it checks here: Node 20 has no in-thread hooks, so
  // client-node loads whole; on Node >= 22.15 (CI's Node 24 pass) both redirects are taken.
  const slim = registerHooks !== undefined;
  it(
    slim
      ? 'with registerHooks (this Node), takes both redirects and still makes API clients'
      : 'without registerHooks (this Node), loads client-node whole and still makes API clients',
    async () => {
      expect(slimClientNode()).toBe(slim);
      // Hooks registered later run first: this one records what the slim hook resolved.
      const seen: string[] = [];
      registerHooks?.({
        resolve(specifier, context, next) {
          const result = next(specifier, context);
          if (result.url.startsWith('data:')) seen.push(`${context.parentURL ?? ''} ${specifier}`);
          return result;
        },
      });
      const { KubeConfig } = clientNodeConfig();
      await import(`${CLIENT_NODE_DIST}cache.js`);
      if (slim)
        expect(seen.sort()).toEqual(
          [
            `${CLIENT_NODE_DIST}cache.js ./serializer.js`,
            `${CLIENT_NODE_DIST}config.js ./gen/index.js`,
            ...[...LAZY_IMPORTS.keys()].map((key) => `${CLIENT_NODE_DIST}${key.replace('\0', ' ')}`),
          ].sort(),
        );
      // The package root, loaded later, shares the class and makes clients with the real generated code.
      const root = await import('@kubernetes/client-node');
      expect(root.KubeConfig).toBe(KubeConfig);
      const kc = new KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: 'c', server: 'https://127.0.0.1:6443', skipTLSVerify: false }],
        users: [{ name: 'u', token: 't' }],
        contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
        currentContext: 'x',
      });
      expect(typeof kc.makeApiClient(root.CoreV1Api).listNamespacedPod).toBe('function');
      // What the stand-ins defer still works where a kubeconfig needs it: node-fetch's Headers...
      const fetchOptions = (await kc.applyToFetchOptions({ headers: { a: 'b' } })) as {
        headers: { get(k: string): string | null };
      };
      expect([fetchOptions.headers.get('a'), fetchOptions.headers.get('authorization')]).toEqual(['b', 'Bearer t']);
      // ...and a SOCKS proxy's agent.
      const socks = new KubeConfig();
      socks.loadFromOptions({
        clusters: [
          { name: 'c', server: 'https://127.0.0.1:6443', skipTLSVerify: false, proxyUrl: 'socks5://127.0.0.1:1080' },
        ],
        users: [{ name: 'u', token: 't' }],
        contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
        currentContext: 'x',
      });
      const httpsOptions: { agent?: { constructor: { name: string } } } = {};
      await socks.applyToHTTPSOptions(httpsOptions as never);
      expect(httpsOptions.agent?.constructor.name).toBe('SocksProxyAgent');
    },
  );
});
