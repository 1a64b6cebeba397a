#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import type { BackendModule } from '../runtime/backend-module.js';
import { loadBackendModule } from '../runtime/load-backend-module.js';
import { runExplain } from '../runtime/explain.js';
import { backendName, DEFAULT_SOCKET } from '../runtime/program-options.js';
import { runProgram, type ProgramSettings } from '../runtime/run-program.js';
import { runAsMain } from '../runtime/signals.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/**
 * `kpng`: core alone (serving the node-local stream), or core plus the in-process backend named by
 * `--backend`, whose own flags then join kpng's. `kpng explain NAMESPACE/NAME --backend B` prints
 * what backend B programmed in this node's kernel for one Service.
 */
export async function main(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  settings: ProgramSettings = {},
): Promise<number> {
  const name = backendName(argv);
  let module: BackendModule<unknown> | undefined;
  try {
    module = name === undefined ? undefined : await loadBackendModule(name);
  } catch (e) {
    process.stderr.write(`kpng: --backend ${name}: ${(e as Error).message}\n`);
    return 2;
  }
  if (argv[0] === 'explain') return runExplain('kpng', module, argv.slice(1));
  if (argv.some((arg) => arg === '--with-netpol' || arg.startsWith('--with-netpol='))) {
    try {
      module = await withNetpolModule(module);
    } catch (e) {
      process.stderr.write(`kpng: --with-netpol: ${(e as Error).message}\n`);
      return 2;
    }
  }
  return runProgram(module, argv, {
    program: 'kpng',
    version: VERSION,
    summary: 'Kubernetes service proxy core',
    selectsBackend: true,
    listenDefault: DEFAULT_SOCKET,
    env,
    ...settings,
  });
}

/** `module` with `@kpng/netpol`'s enforcer beside it (one sync loop), or the enforcer alone. */
async function withNetpolModule(module: BackendModule<unknown> | undefined): Promise<BackendModule<unknown>> {
  const specifier = '@kpng/netpol'; // loaded like a backend: core does not depend on it
  let mod: { withNetpol?: (main: BackendModule<unknown> | undefined) => BackendModule<unknown> };
  try {
    mod = (await import(specifier)) as typeof mod;
  } catch (e) {
    throw new Error(`cannot load ${specifier}: ${(e as Error).message.split('\n')[0]}`);
  }
  if (typeof mod.withNetpol !== 'function') throw new Error(`${specifier} does not export withNetpol`);
  return mod.withNetpol(module);
}

await runAsMain(import.meta.url, () => main(process.argv.slice(2)));
