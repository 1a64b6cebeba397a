import { ExecError, processExecer, withTimeout } from '@kpng/kit';

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

/**
 * Runs a command to completion through the kit's exec seam (killed after `timeoutMs`:
 * `ExecTimeoutError`); never throws for a non-zero exit (see `runChecked`). One final newline of
 * each output is dropped, so `stdout` of a one-line answer is that line.
 */
export async function run(argv: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const result = await withTimeout(processExecer, options.timeoutMs ?? DEFAULT_TIMEOUT_MS).run(
    argv,
    options.input ?? '',
  );
  return { exitCode: result.exitCode, stdout: chomp(result.stdout), stderr: chomp(result.stderr) };
}

/** Like `run`, but a non-zero exit is an `ExecError` carrying the command, its exit code and stderr. */
export async function runChecked(argv: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const result = await run(argv, options);
  if (result.exitCode !== 0) throw new ExecError(argv, result);
  return result;
}

function chomp(text: string): string {
  return text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
}
