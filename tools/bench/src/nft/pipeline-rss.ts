/**
 * Peak memory of the real pipeline, core + nft backend, measured from outside: the `kpng-nft`
 * program runs in a CHILD process over a scenario file (core's FileSource, model, node view, the
 * backend) and programs a network namespace; once its first full sync is logged, its peak resident
 * set (`VmHWM` in /proc/<pid>/status) is read and the child is stopped. Linux only. Run a compiled
 * copy (`compiledCopy`) to measure what production runs.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { eachLine, spawnChild } from '@kpng/kit';

export interface PipelineRssOptions {
  /** A `kind: List` of Services, EndpointSlices and Nodes (JSON is much faster for core to parse). */
  readonly file: string;
  readonly nodeName: string;
  /** The namespace the child programs (`--netns`); create and delete it around the call. */
  readonly netns: string;
  /** The kpng-nft program to run (default `kpngNftEntry()`), e.g. a compiled copy's `dist/cli/main.js`. */
  readonly entry?: string;
  /** Node options the child needs, e.g. `--import` of a TypeScript loader when running sources. */
  readonly nodeArgs?: readonly string[];
  /** Extra kpng-nft flags. */
  readonly flags?: readonly string[];
  /** Default 10 minutes. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

export interface PipelineRss {
  /** VmHWM of the child after its first full sync. */
  readonly peakRssBytes: number;
  /** What the child logged for that sync. */
  readonly syncMs: number;
  readonly operations: number;
  readonly services: number;
}

/** The built kpng-nft program of the workspace's @kpng/nft. */
export function kpngNftEntry(): string {
  return fileURLToPath(new URL('dist/cli/main.js', import.meta.resolve('@kpng/nft/package.json')));
}

/** `VmHWM` (peak resident set) of a process, in bytes. */
export async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(status);
  if (match === null) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

interface SyncedLine {
  readonly msg?: unknown;
  readonly full?: unknown;
  readonly ms?: unknown;
  readonly operations?: unknown;
  readonly services?: unknown;
  /** component-base's JSON: info lines carry their verbosity, error lines none. */
  readonly v?: unknown;
}

export async function measurePipelineRss(options: PipelineRssOptions): Promise<PipelineRss> {
  const args = [
    ...(options.nodeArgs ?? []),
    options.entry ?? kpngNftEntry(),
    '--file',
    options.file,
    '--node-name',
    options.nodeName,
    '--netns',
    options.netns,
    // No servers: the child must not listen in the root namespace.
    '--metrics-bind-address',
    '',
    '--healthz-bind-address',
    '',
    '--logging-format=json',
    ...(options.flags ?? []),
  ];
  const tail: string[] = [];
  // The first full sync's line, or why there will be none (an error line).
  let settle: (outcome: SyncedLine | Error) => void = () => undefined;
  const synced = new Promise<SyncedLine | Error>((resolve) => (settle = resolve));
  const child = spawnChild([process.execPath, ...args], {
    onStderr: eachLine((line) => {
      tail.push(line);
      if (tail.length > 20) tail.shift();
      let parsed: SyncedLine;
      try {
        parsed = JSON.parse(line) as SyncedLine;
      } catch {
        return;
      }
      if (parsed.v === undefined) settle(new Error(`kpng-nft failed: ${line}`));
      else if (parsed.msg === 'synced nftables' && parsed.full === true) settle(parsed);
    }),
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('cannot start kpng-nft');
  const stop = (): void => child.kill('SIGTERM');
  const timer = setTimeout(stop, options.timeoutMs ?? 600_000);
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    const outcome = await Promise.race([
      synced,
      child.exited.then(
        (exit) =>
          new Error(`kpng-nft exited before its first sync (exit ${String(exit.exitCode)}):\n${tail.join('\n')}`),
      ),
    ]);
    if (outcome instanceof Error) throw outcome;
    const peakRssBytes = await peakRss(pid);
    return {
      peakRssBytes,
      syncMs: Number(outcome.ms),
      operations: Number(outcome.operations),
      services: Number(outcome.services),
    };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
    stop();
    await child.exited;
  }
}
