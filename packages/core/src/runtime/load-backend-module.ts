import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BackendModule } from './backend-module.js';
import { logBackend } from './log-backend.js';

/**
 * Imports a module specifier from the caller's package, so a package resolves the backends it
 * depends on (the compat kube-proxy passes `(s) => import(s)`). Default: resolved from core.
 */
export type ModuleImporter = (specifier: string) => Promise<unknown>;

/**
 * `log`, a backend by short name (`nft` is `@kpng/nft`), a package, or a file (`./my-backend.js`),
 * each exporting its `BackendModule` as `backend`, imported now (once: the module cache keeps it).
 * `kpng --backend NAME` and the compat kube-proxy's modes load their backend through this, after
 * their flags are read. Throws a one-line error naming what could not be loaded.
 */
export async function loadBackendModule(
  name: string,
  importModule: ModuleImporter = (specifier) => import(specifier),
): Promise<BackendModule<unknown>> {
  if (name === 'log') return logBackend as BackendModule<unknown>;
  const specifier = /^[a-z][a-z0-9-]*$/.test(name)
    ? `@kpng/${name}`
    : name.startsWith('.') || name.startsWith('/')
      ? pathToFileURL(resolve(name)).href // a file, relative to the working directory
      : name;
  let mod: { backend?: BackendModule<unknown> };
  try {
    mod = (await importModule(specifier)) as { backend?: BackendModule<unknown> };
  } catch (e) {
    throw new Error(`cannot load ${specifier}: ${(e as Error).message.split('\n')[0]}`);
  }
  const backend = mod.backend;
  if (typeof backend?.create !== 'function' || typeof backend.parseFlags !== 'function') {
    throw new Error(`${specifier} does not export a backend module (\`export const backend = defineBackend({...})\`)`);
  }
  return backend;
}
