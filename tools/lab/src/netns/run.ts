import { ExecError, ExecTimeoutError, processExecer, spawnChild, withTimeout } from '@kpng/kit';
import { scaledTimeout } from './timeout-scale.js';

export interface RunOptions {
  readonly input?: string;
  /** Defaults to 10 s (times the VM's timeout scale): every command the lab runs is bounded. */
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
  const result = await withTimeout(processExecer, options.timeoutMs ?? scaledTimeout(DEFAULT_TIMEOUT_MS)).run(
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

/** What `runBytes` resolves with: the exit code (`null`: ended by a signal) and the output's bytes. */
export interface BytesResult {
  readonly exitCode: number | null;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/**
 * Runs a command that reads and writes bytes (a decompressor) through the kit's spawn seam: `input`
 * is written whole, stdout comes back as bytes. Never throws for a non-zero exit; a command still
 * running after `timeoutMs` (10 s by default, times the VM's timeout scale) is killed
 * (`ExecTimeoutError`), one that cannot start rejects with `ExecStartError`.
 */
export async function runBytes(
  argv: readonly string[],
  options: { readonly input?: Uint8Array; readonly timeoutMs?: number } = {},
): Promise<BytesResult> {
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  const timeoutMs = options.timeoutMs ?? scaledTimeout(DEFAULT_TIMEOUT_MS);
  const child = spawnChild(argv, {
    ...(options.input === undefined ? {} : { input: true }),
    onStdout: (chunk) => stdout.push(chunk),
    onStderr: (chunk) => stderr.push(chunk),
  });
  if (options.input !== undefined) {
    child.write(options.input);
    child.endInput();
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  const exit = await child.exited.finally(() => clearTimeout(timer));
  if (exit.error !== undefined) throw exit.error;
  if (timedOut) throw new ExecTimeoutError(argv, timeoutMs);
  return { exitCode: exit.exitCode, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr).toString('utf8') };
}
