/**
 * The one seam through which kpng starts processes (`nft`, `iptables-restore`, `ipvsadm`, `ip`,
 * `conntrack`, `sysctl`). Tests substitute a fake (`@kpng/kit/testing`, or a package's own
 * simulation of its tool); production uses `processExecer`. To run inside a network namespace,
 * build the argv with `inNetns`.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { TurnBudget } from './turn-budget.js';

export interface ExecResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Execer {
  /**
   * Runs `argv` with `stdin` and resolves with its exit code and output, also when the exit code
   * is non-zero (see `runChecked` for an error instead). Rejects with `ExecStartError` when the
   * process cannot be started or dies of a signal, and with the signal's reason when aborted.
   */
  run(argv: readonly string[], stdin: string, signal?: AbortSignal): Promise<ExecResult>;
  /**
   * Optional: `run` with stdin given in pieces, taken one at a time (a full sync's input is tens
   * of MiB of text when held whole). The command sees its input only once the last piece was
   * taken, so never a part of it: if `stdin` throws, the command is killed (or never started)
   * before it reads anything and the call rejects with that error. Without it, `runChunked` joins
   * the pieces and calls `run`.
   */
  runStream?(argv: readonly string[], stdin: AsyncIterable<string>, signal?: AbortSignal): Promise<ExecResult>;
}

/** The process could not be started, or was ended by a signal kpng did not send through an abort. */
export class ExecStartError extends Error {
  readonly argv: readonly string[];
  constructor(argv: readonly string[], detail: string, options?: ErrorOptions) {
    super(`cannot run ${argv.join(' ')}: ${detail}`, options);
    this.name = 'ExecStartError';
    this.argv = [...argv];
  }
}

/** The process ran and exited non-zero: its exit code and what it wrote to stderr (and stdout). */
export class ExecError extends Error {
  readonly argv: readonly string[];
  readonly exitCode: number;
  readonly stderr: string;
  readonly stdout: string;
  constructor(argv: readonly string[], result: ExecResult) {
    const said = result.stderr.trim() || result.stdout.trim();
    super(`${argv.join(' ')} exited with ${result.exitCode}${said === '' ? '' : `: ${said}`}`);
    this.name = 'ExecError';
    this.argv = [...argv];
    this.exitCode = result.exitCode;
    this.stderr = result.stderr;
    this.stdout = result.stdout;
  }
}

/** `execer.run`, throwing `ExecError` when the exit code is not 0. */
export async function runChecked(
  execer: Execer,
  argv: readonly string[],
  stdin = '',
  signal?: AbortSignal,
): Promise<ExecResult> {
  const result = await execer.run(argv, stdin, signal);
  if (result.exitCode !== 0) throw new ExecError(argv, result);
  return result;
}

/** The process ran longer than `withTimeout` allowed and was killed. */
export class ExecTimeoutError extends Error {
  readonly argv: readonly string[];
  readonly timeoutMs: number;
  constructor(argv: readonly string[], ms: number, options?: ErrorOptions) {
    super(`${argv.join(' ')} did not finish within ${ms} ms: killed`, options);
    this.name = 'ExecTimeoutError';
    this.argv = [...argv];
    this.timeoutMs = ms;
  }
}

/**
 * `execer`, killing (through the abort signal every execer honours) a command still running `ms`
 * after it started, or, streamed, after its input was complete (rendering the input is the
 * caller's time, not the command's); that call rejects with `ExecTimeoutError`. A caller's own
 * abort still rejects with its own reason.
 */
export function withTimeout(execer: Execer, ms: number): Execer {
  const timed = async (
    argv: readonly string[],
    signal: AbortSignal | undefined,
    run: (signal: AbortSignal, arm: () => void) => Promise<ExecResult>,
  ): Promise<ExecResult> => {
    const timeout = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    // Unreferenced, as AbortSignal.timeout's: the timer alone never keeps the program alive.
    const arm = (): void => {
      timer ??= setTimeout(() => timeout.abort(new Error(`timed out after ${ms} ms`)), ms).unref();
    };
    try {
      return await run(signal === undefined ? timeout.signal : AbortSignal.any([signal, timeout.signal]), arm);
    } catch (e) {
      if (!timeout.signal.aborted || signal?.aborted === true) throw e;
      throw new ExecTimeoutError(argv, ms, { cause: e });
    } finally {
      clearTimeout(timer);
    }
  };
  const wrapped: Execer = {
    run: (argv, stdin, signal) =>
      timed(argv, signal, (s, arm) => {
        arm();
        return execer.run(argv, stdin, s);
      }),
  };
  const stream = execer.runStream;
  if (stream !== undefined)
    wrapped.runStream = (argv, stdin, signal) =>
      timed(argv, signal, (s, arm) => stream.call(execer, argv, thenCall(stdin, arm), s));
  return wrapped;
}

/** `pieces`, calling `done` once the last was taken. */
async function* thenCall(pieces: AsyncIterable<string>, done: () => void): AsyncGenerator<string, void, void> {
  yield* pieces;
  done();
}

/** Runs `argv` with stdin in pieces: through `execer.runStream` when it has one, else joined, through `run`. */
export async function runChunked(
  execer: Execer,
  argv: readonly string[],
  stdin: AsyncIterable<string>,
  signal?: AbortSignal,
): Promise<ExecResult> {
  if (execer.runStream !== undefined) return execer.runStream(argv, stdin, signal);
  const pieces: string[] = [];
  for await (const piece of stdin) pieces.push(piece);
  return execer.run(argv, pieces.join(''), signal);
}

/** A process started before its input is ready: the input is pushed in pieces, then `end`. */
export interface StartedProcess {
  write(chunk: string): void;
  /** Closes its input; resolves as `Execer.run` does (rejects once killed). */
  end(): Promise<ExecResult>;
  /** Kills it before its input is complete: it never sees any of it. */
  kill(): void;
}

/**
 * `runChunked` with the pieces pushed rather than pulled: the command is started now (through
 * `runStream`, so a process overlaps its start-up with the caller's rendering) and gets its input
 * at `end`.
 */
export function startProcess(execer: Execer, argv: readonly string[], signal?: AbortSignal): StartedProcess {
  const pieces: string[] = [];
  let closed = false;
  let killed: Error | undefined;
  let wake: (() => void) | undefined;
  async function* input(): AsyncGenerator<string> {
    for (;;) {
      if (killed !== undefined) throw killed;
      if (pieces.length > 0) {
        yield pieces.shift() as string;
        continue;
      }
      if (closed) return;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  }
  const result = runChunked(execer, argv, input(), signal);
  // A killed process's result is only observed by a later `end`, if any.
  result.catch(() => undefined);
  return {
    write(chunk) {
      pieces.push(chunk);
      wake?.();
    },
    end() {
      closed = true;
      wake?.();
      return result;
    },
    kill() {
      killed ??= new Error(`${argv[0]} was killed`);
      wake?.();
    },
  };
}

/** After an abort's SIGTERM, the SIGKILL for a process that has not exited (as execa does). */
const FORCE_KILL_AFTER_MS = 5_000;

/**
 * Starts real processes (`node:child_process`, no shell). `runStream` starts the process at once
 * and writes its input only when the last piece was taken: a piece that throws kills it with
 * SIGKILL before it read anything.
 */
export const processExecer: Execer = processExecerWith({});

/** Where, with what environment and as whom a process runs (by default: as this one). */
export interface ProcessOptions {
  /** Its working directory. */
  readonly cwd?: string;
  /** Variables added to (or replacing) this process's environment for it. */
  readonly env?: Readonly<Record<string, string>>;
  /** `false`: its environment is `env` alone, nothing of this process's (a program proven to stand alone). */
  readonly inheritEnv?: boolean;
  /** The user and group it runs as (a test that asks how another user is treated). */
  readonly uid?: number;
  readonly gid?: number;
}

/** `processExecer` with its processes started in `options`'s directory, environment or user. */
export function processExecerWith(options: ProcessOptions): Execer {
  return {
    run(argv, stdin, signal) {
      return runProcess(argv, () => [stdin], signal, options);
    },
    runStream(argv, stdin, signal) {
      return runProcess(
        argv,
        async () => {
          const pieces: string[] = [];
          // Taking tens of thousands of pieces is microtasks only: turns for the rest meanwhile.
          const budget = new TurnBudget(INPUT_TURN_MS);
          for await (const piece of stdin) {
            pieces.push(piece);
            await budget.maybeYield();
          }
          return pieces;
        },
        signal,
        options,
      );
    },
  };
}

/** The `spawn` options of `options`: the environment is this process's with `env` over it. */
function spawnOptions(options: ProcessOptions): { cwd?: string; env?: NodeJS.ProcessEnv; uid?: number; gid?: number } {
  return {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.inheritEnv === false
      ? { env: { ...options.env } }
      : options.env === undefined
        ? {}
        : { env: { ...process.env, ...options.env } }),
    ...(options.uid === undefined ? {} : { uid: options.uid }),
    ...(options.gid === undefined ? {} : { gid: options.gid }),
  };
}

/** Taking and writing a large input (a 10k-Service restore: tens of MB in tens of thousands of pieces) yields after this much time. */
const INPUT_TURN_MS = 10;
/** Pieces are joined and written in chunks of about this many characters, a turn each. */
const WRITE_CHUNK = 1 << 20;

/** Writes the input in chunks, giving the event loop a turn after each, then ends it. */
async function writeInput(stdin: Writable, pieces: readonly string[]): Promise<void> {
  let batch: string[] = [];
  let size = 0;
  const flush = async (): Promise<void> => {
    stdin.write(batch.length === 1 ? (batch[0] as string) : batch.join(''));
    batch = [];
    size = 0;
    await new Promise<void>((resolve) => setImmediate(resolve));
  };
  for (const piece of pieces) {
    batch.push(piece);
    size += piece.length;
    if (size >= WRITE_CHUNK) await flush();
  }
  if (batch.length > 0) await flush();
  stdin.end();
}

function runProcess(
  argv: readonly string[],
  input: () => readonly string[] | Promise<readonly string[]>,
  signal: AbortSignal | undefined,
  options: ProcessOptions,
): Promise<ExecResult> {
  const [file, ...args] = argv;
  if (file === undefined) return Promise.reject(new Error('empty argv'));
  if (signal?.aborted === true) return Promise.reject(abortReason(signal, file));
  return new Promise<ExecResult>((resolve, reject) => {
    const child = spawn(file, args, { ...spawnOptions(options), stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => stdout.push(b));
    child.stderr.on('data', (b: Buffer) => stderr.push(b));
    // A process that exits before reading all its input (an error at line 1) closes the pipe: its
    // exit code and stderr say what happened, the EPIPE says nothing more.
    child.stdin.on('error', () => undefined);
    let failure: unknown;
    let forceKill: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      failure ??= abortReason(signal as AbortSignal, file);
      child.kill('SIGTERM');
      forceKill = setTimeout(() => child.kill('SIGKILL'), FORCE_KILL_AFTER_MS);
      forceKill.unref();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.once('error', (e) => {
      failure ??= new ExecStartError(argv, e.message, { cause: e });
    });
    child.once('close', (code, sig) => {
      signal?.removeEventListener('abort', onAbort);
      clearTimeout(forceKill);
      if (failure !== undefined) reject(failure);
      else if (code === null) reject(new ExecStartError(argv, `killed by ${sig ?? 'a signal'}`));
      else
        resolve({
          exitCode: code,
          stdout: Buffer.concat(stdout).toString('utf8'),
          stderr: Buffer.concat(stderr).toString('utf8'),
        });
    });
    // Nothing is written until the input is complete (a piece that throws kills a process that
    // read nothing); then it goes in chunks, with turns between them.
    Promise.resolve()
      .then(input)
      .then(
        (pieces) => writeInput(child.stdin, pieces),
        (e: unknown) => {
          failure ??= e;
          child.kill('SIGKILL');
        },
      )
      .catch(() => undefined); // a write after the process went: its exit code and stderr say why
  });
}

function abortReason(signal: AbortSignal, file: string): unknown {
  return signal.reason ?? new Error(`${file} was aborted`);
}

/** How a long-running process ended: its exit code, or the signal that ended it, or why it never ran. */
export interface ProcessExit {
  /** `null` when a signal ended it or it never started. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Set when it could not be started (`ExecStartError`). */
  readonly error?: ExecStartError;
}

export interface SpawnOptions extends ProcessOptions {
  /** Its stdin is a pipe the caller writes (`write`, `endInput`); otherwise it reads nothing. */
  readonly input?: boolean;
  /** Each chunk of its stdout, as it comes (otherwise discarded). */
  readonly onStdout?: (chunk: Buffer) => void;
  /** Each chunk of its stderr, as it comes (otherwise discarded). */
  readonly onStderr?: (chunk: Buffer) => void;
}

/**
 * An `onStdout`/`onStderr` callback that calls `onLine` with each complete line (without its `\n`),
 * decoded as UTF-8 across chunk boundaries; a last line without `\n` is never passed.
 */
export function eachLine(onLine: (line: string) => void): (chunk: Buffer) => void {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  return (chunk) => {
    const lines = (rest + decoder.write(chunk)).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  };
}

/** A process that runs beside the caller (a server, a client holding a connection, a decompressor fed in pieces). */
export interface SpawnedChild {
  readonly pid: number | undefined;
  /** Writes to its stdin (`input: true`); bytes are written as they are. */
  write(chunk: string | Uint8Array): void;
  /** Closes its stdin. */
  endInput(): void;
  /** Sends `signal` (SIGTERM by default) unless it already exited. */
  kill(signal?: NodeJS.Signals): void;
  /** Resolves once it exited and its output was read; never rejects. */
  readonly exited: Promise<ProcessExit>;
}

/**
 * The exec seam's long-running side: starts `argv` (no shell) and returns at once; its output
 * reaches the callbacks as it comes. Where `Execer.run` waits for a command to finish, this is for
 * a process whose life the caller manages (stop it with `kill`; `exited` says how it ended).
 */
export function spawnChild(argv: readonly string[], options: SpawnOptions = {}): SpawnedChild {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error('empty argv');
  const child = spawn(file, args, {
    ...spawnOptions(options),
    stdio: [options.input === true ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', options.onStdout ?? (() => undefined));
  child.stderr?.on('data', options.onStderr ?? (() => undefined));
  // A process that exits while it is written to closes the pipe: its exit says what happened.
  child.stdin?.on('error', () => undefined);
  let startError: ExecStartError | undefined;
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('error', (e) => {
      startError ??= new ExecStartError(argv, e.message, { cause: e });
    });
    child.once('close', (code, signal) =>
      resolve({ exitCode: code, signal, ...(startError === undefined ? {} : { error: startError }) }),
    );
  });
  return {
    pid: child.pid,
    write(chunk) {
      if (child.stdin === null) throw new Error(`${file} was started without input`);
      child.stdin.write(chunk);
    },
    endInput() {
      child.stdin?.end();
    },
    kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    exited,
  };
}

export interface RunSyncOptions extends ProcessOptions {
  /** Its stdin (otherwise it reads nothing). */
  readonly input?: string;
  /** Killed (SIGTERM) once it ran this long: `runSync` throws `ExecTimeoutError`. */
  readonly timeoutMs?: number;
  /** Bytes of stdout or stderr kept before it is killed and `runSync` throws (default 256 MiB). */
  readonly maxBuffer?: number;
  /** `'pipe'` (default): its stdout and stderr are returned; `'inherit'`: they are this process's (returned empty). */
  readonly output?: 'pipe' | 'inherit';
}

const SYNC_MAX_BUFFER = 256 * 1024 * 1024;

/**
 * `Execer.run` for a build or release step, blocking: runs `argv` (no shell) to its end and returns
 * its exit code and output, also when the exit code is non-zero. Throws `ExecStartError` when it
 * cannot be started, outgrew `maxBuffer` or died of a signal, and `ExecTimeoutError` past `timeoutMs`.
 * Never in a program's event loop: for tools and tests that have nothing else to do meanwhile.
 */
export function runSync(argv: readonly string[], options: RunSyncOptions = {}): ExecResult {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error('empty argv');
  const output = options.output ?? 'pipe';
  const r = spawnSync(file, args, {
    ...spawnOptions(options),
    input: options.input ?? '',
    stdio: ['pipe', output, output],
    encoding: 'utf8',
    maxBuffer: options.maxBuffer ?? SYNC_MAX_BUFFER,
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
  });
  const error = r.error as NodeJS.ErrnoException | undefined;
  if (error?.code === 'ETIMEDOUT') throw new ExecTimeoutError(argv, options.timeoutMs ?? 0, { cause: error });
  if (error !== undefined) throw new ExecStartError(argv, error.message, { cause: error });
  if (r.status === null) throw new ExecStartError(argv, `killed by ${r.signal ?? 'a signal'}`);
  return { exitCode: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** `runSync`, throwing `ExecError` when the exit code is not 0 (as `runChecked` does). */
export function runSyncChecked(argv: readonly string[], options: RunSyncOptions = {}): ExecResult {
  const result = runSync(argv, options);
  if (result.exitCode !== 0) throw new ExecError(argv, result);
  return result;
}
