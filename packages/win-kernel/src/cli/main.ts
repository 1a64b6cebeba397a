#!/usr/bin/env node
/**
 * `kpng-win-kernel`: the Windows HNS backend as a program. In-process (a core over a file or the
 * API server, one process, like kube-proxy) or split (`--connect`: consume a core's stream).
 */
import { readFileSync } from 'node:fs';
import { runAsMain, runProgram, type ProgramSettings } from '@kpng/core/runtime';
import { backend } from './backend-module.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** @param signal stops the program (tests); SIGINT and SIGTERM always do. */
export function main(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  signal?: AbortSignal,
  settings: ProgramSettings = {},
): Promise<number> {
  return runProgram(backend, argv, { version: VERSION, env, ...(signal ? { signal } : {}), ...settings });
}

await runAsMain(import.meta.url, () => main(process.argv.slice(2)));
