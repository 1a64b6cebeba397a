import { execa } from 'execa';

export interface RunOptions {
  readonly input?: string;
  /** Defaults to 10 s: every command the lab runs is bounded. */
  readonly timeoutMs?: number;
}

export interface RunResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

export const DEFAULT_TIMEOUT_MS = 10_000;

/** Runs a command to completion; never throws for a non-zero exit (see `runChecked`). */
export async function run(argv: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error('empty argv');
  const result = await execa(file, args, {
    reject: false,
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(options.input === undefined ? { stdin: 'ignore' as const } : { input: options.input }),
  });
  if (result.timedOut)
    throw new Error(`timed out after ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms: ${argv.join(' ')}`);
  if (result.exitCode === undefined) throw new Error(`cannot run ${argv.join(' ')}: ${result.message}`);
  return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

/** Like `run`, but a non-zero exit is an error carrying the command and its stderr. */
export async function runChecked(argv: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const result = await run(argv, options);
  if (result.exitCode !== 0) {
    throw new Error(
      `${argv.join(' ')} exited with ${result.exitCode}: ${result.stderr.trim() || result.stdout.trim()}`,
    );
  }
  return result;
}
