import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { canCreateNamespaces, createNamespace, Lab, sweepLeftovers, type NetworkNamespace } from '@kpng/lab';
import { compiledCopy } from '../nft/compiled-copy.js';
import type { SuiteContext } from './suite.js';

/** Throws unless this process can create network namespaces; removes namespaces an earlier run left behind. */
export async function requireNamespaces(suite: string): Promise<void> {
  const capability = await canCreateNamespaces();
  if (!capability.ok) throw new Error(`the ${suite} suite needs to create network namespaces: ${capability.reason}`);
  await sweepLeftovers();
}

/** Runs `fn` in a fresh namespace, deleted afterwards, and on Ctrl-C. */
export async function inNamespace(
  ctx: SuiteContext,
  name: string,
  fn: (ns: NetworkNamespace) => Promise<void>,
): Promise<void> {
  if (ctx.signal.aborted) throw new Error('aborted');
  await deletedAfter(ctx, await createNamespace(name), fn);
}

/** Runs `fn` in a fresh lab with these pods, deleted afterwards, and on Ctrl-C. */
export async function inLab(
  ctx: SuiteContext,
  pods: readonly string[],
  fn: (lab: Lab) => Promise<void>,
): Promise<void> {
  if (ctx.signal.aborted) throw new Error('aborted');
  await deletedAfter(ctx, await Lab.create({ pods }), fn);
}

async function deletedAfter<T extends { delete(): Promise<void> }>(
  ctx: SuiteContext,
  made: T,
  fn: (made: T) => Promise<void>,
): Promise<void> {
  const onAbort = (): void => void made.delete();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  try {
    await fn(made);
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    await made.delete();
  }
}

/**
 * `kpng-nft`'s main module in a compiled copy of core and the backend (what production runs: no
 * TypeScript loader). `sources`: a checkout of another revision (a folder holding `packages/core`
 * and `packages/nft`, e.g. from `git archive`), to measure it against the current one.
 */
export async function compiledKpngNft(cacheName: string, sources?: string): Promise<string> {
  return compiledProgram(['@kpng/core', '@kpng/kit', '@kpng/nftables', '@kpng/nft'], cacheName, sources);
}

/** `kpng-ebpf`'s main module, compiled (with its BPF object, built by the workspace's build). */
export async function compiledKpngEbpf(cacheName: string, sources?: string): Promise<string> {
  return compiledProgram(['@kpng/core', '@kpng/kit', '@kpng/nftables', '@kpng/nft', '@kpng/ebpf'], cacheName, sources);
}

/**
 * The compat `kube-proxy`'s main module, compiled with every backend it vendors. Its start-up
 * cleanup deletes tables in the namespace it programs: run it only through the proxy suite's
 * guard (`namespaceRefusal`), with `KPNG_NETNS` set to a lab namespace.
 */
export async function compiledKubeProxy(cacheName: string, sources?: string): Promise<string> {
  const names = [
    '@kpng/core',
    '@kpng/kit',
    '@kpng/nftables',
    '@kpng/nft',
    '@kpng/iptables',
    '@kpng/ipvs',
    '@kpng/win-kernel',
    '@kpng/kube-proxy',
  ];
  return compiledProgram(names, cacheName, sources);
}

/** Compiles `names` (the last one holds the program: `dist/cli/main.js`), from `sources` if given. */
async function compiledProgram(names: readonly string[], cacheName: string, sources?: string): Promise<string> {
  const packageDir = (name: string): string =>
    sources !== undefined
      ? join(sources, 'packages', name.replace('@kpng/', ''))
      : fileURLToPath(new URL('.', import.meta.resolve(`${name}/package.json`)));
  // An older revision may lack a package split out since (`@kpng/nftables` was in `@kpng/nft`).
  const present = names.filter((name) => sources === undefined || existsSync(packageDir(name)));
  const copies = await compiledCopy(
    present.map((name) => ({ name, dir: packageDir(name) })),
    fileURLToPath(new URL(`../../node_modules/.cache/${cacheName}/`, import.meta.url)),
  );
  return join(copies.get(names[names.length - 1] as string) as string, 'dist', 'cli', 'main.js');
}
