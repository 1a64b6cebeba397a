#!/usr/bin/env node
/**
 * `kube-proxy`: kube-proxy's command line and KubeProxyConfiguration in front of kpng's core and
 * backends, in one process. Errors exit 1 with the message on stderr, as upstream's do.
 *
 * This module reads the flags and answers `--help` and `--version` with nothing else loaded: the
 * configuration, the API client, the runtime and the one backend package the chosen mode needs are
 * imported only once the program runs (`run.ts`, `run/modes.ts`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { runAsMain } from '@kpng/core/entry';
import type { RunningProxy } from '@kpng/core/runtime';
import { FlagError, parseFlags, type ParsedFlags } from '../flags/parse.js';
import type { SysctlAccess } from '../run/sysctl.js';
import { AVAILABLE_MODES } from '../run/modes.js';
import { usage } from './usage.js';
import { VERSION, versionText } from './version.js';

export interface MainIO {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Stops the running proxy. Default: SIGINT or SIGTERM. */
  readonly signal?: AbortSignal;
  readonly readFile: (path: string) => string;
  readonly writeFile: (path: string, text: string) => void;
  /** Called once the proxy runs (tests read server addresses here). */
  readonly onStarted?: (running: RunningProxy) => void;
  readonly cpuCores: number;
  /** Sets this process's OOM score adjustment. Default: writes /proc/self/oom_score_adj. */
  readonly setOomScoreAdj?: (value: number) => Promise<void>;
  /** /proc/sys of the namespace kube-proxy programs. Default: its own, or KPNG_NETNS's. */
  readonly sysctl?: SysctlAccess;
}

const PROCESS_IO: MainIO = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  readFile: (path) => readFileSync(path, 'utf8'),
  writeFile: (path, text) => writeFileSync(path, text),
  cpuCores: availableParallelism(),
};

export async function main(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<MainIO> = {},
): Promise<number> {
  const io: MainIO = { ...PROCESS_IO, ...overrides };
  if (argv[0] === 'explain') return (await import('./explain.js')).explain(argv.slice(1), env, io);
  let flags: ParsedFlags;
  try {
    flags = parseFlags(argv);
  } catch (e) {
    if (!(e instanceof FlagError)) throw e;
    io.stderr(`Error: ${e.message}\nRun 'kube-proxy --help' for usage.\n`);
    return 1;
  }
  if (flags.get('help') === true) return (io.stdout(usage()), 0);
  const version = flags.get<boolean | string>('version');
  if (version === true || version === 'raw') return (io.stdout(versionText(version === 'raw', AVAILABLE_MODES)), 0);
  // `--version=vX.Y.Z` (verflag): report that version and run.
  const reportedVersion = typeof version === 'string' ? version : `v${VERSION}`;
  const { run } = await import('./run.js');
  return run(flags, reportedVersion, env, io);
}

// Run when executed as a program (not when imported by tests), under core's process fault policy.
await runAsMain(import.meta.url, () => main(process.argv.slice(2)));
