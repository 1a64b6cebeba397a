// Not the kit's spawnChild: this shell needs its own process group (detached, killed as a group on abort)
// and handles unreferenced while it idles (it must never keep a program alive); eslint names the exception.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { runChunked, type Execer, type ExecResult } from '@kpng/kit';

/**
 * Per command: its arguments on one line (split on spaces, no globbing), stdin from `$1/in`,
 * stdout and stderr to files, then the exit code on a line of its own. The shell ends when its
 * stdin closes (the program exits, or `close()`), so it never outlives the program, and then
 * deletes its files (also when the program was killed).
 */
const SCRIPT = `set -f
trap 'rm -rf "$D"' EXIT
while IFS= read -r line; do
  IFS=' '; set -- $line; IFS=
  "$@" <"$D/in" >"$D/out" 2>"$D/err"
  echo "$?"
done`;

export interface ShellExecerOptions {
  /** How the shell is started, e.g. `['ip', 'netns', 'exec', NS]` to run every command inside NS. */
  readonly prefix?: readonly string[];
  /** Runs what one line cannot carry (an argument with whitespace, an empty one). Default: none, it throws. */
  readonly fallback?: Execer;
}

type Shell = ChildProcessByStdio<Writable, Readable, null>;

interface Running {
  readonly shell: Shell;
  readonly dir: string;
  readonly lines: Interface;
  /** Waiters for the next exit-code line, in order. */
  readonly waiting: ((line: string | Error) => void)[];
  /** Why the shell is gone (a spawn error can come before a command waits): later waiters get it. */
  failed?: Error;
}

/**
 * An `Execer` that starts one long-lived shell (inside the namespace, when the prefix enters one) and
 * has it run each command: a command costs the shell's fork and exec of `nft`, not a fork of this
 * (big) process plus `ip netns exec`'s namespace set-up (the figures: the kpng repository's
 * docs/PERFORMANCE.md). Each
 * command is still its own `nft` process with its own stdin, so `nft -f -` keeps its semantics: one
 * atomic transaction, errors located by line, its exit code. Commands run one at a time.
 */
export class ShellExecer implements Execer {
  readonly #prefix: readonly string[];
  readonly #fallback: Execer | undefined;
  #running: Promise<Running> | undefined;
  /** The shell `#running` resolved to. */
  #current: Running | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: ShellExecerOptions = {}) {
    this.#prefix = options.prefix ?? [];
    this.#fallback = options.fallback;
  }

  run(argv: readonly string[], stdin: string, signal?: AbortSignal): Promise<ExecResult> {
    return this.#dispatch(
      argv,
      (path) => writeFile(path, stdin),
      (fallback, line) => fallback.run(line, stdin, signal),
      signal,
    );
  }

  /**
   * `run` with stdin in pieces: each is written to the command's input file as it comes, and the
   * command runs once the file is complete. If `stdin` throws (a transaction that failed while it
   * was rendered), the command is never run: nothing of it reaches nft.
   */
  runStream(argv: readonly string[], stdin: AsyncIterable<string>, signal?: AbortSignal): Promise<ExecResult> {
    return this.#dispatch(
      argv,
      async (path) => {
        const file = await open(path, 'w');
        try {
          for await (const piece of stdin) await file.write(piece);
        } finally {
          await file.close();
        }
      },
      (fallback, line) => runChunked(fallback, line, stdin, signal),
      signal,
    );
  }

  /** Queues `argv` for the shell, or hands what one line cannot carry to the fallback. */
  #dispatch(
    argv: readonly string[],
    input: (path: string) => Promise<void>,
    fallback: (execer: Execer, argv: readonly string[]) => Promise<ExecResult>,
    signal: AbortSignal | undefined,
  ): Promise<ExecResult> {
    if (argv.length === 0) return Promise.reject(new Error('empty argv'));
    if (!argv.every((arg) => arg !== '' && !/\s/.test(arg))) {
      if (this.#fallback === undefined)
        return Promise.reject(new Error(`cannot pass ${JSON.stringify(argv)} to the shell: whitespace or empty`));
      return fallback(this.#fallback, [...this.#prefix, ...argv]);
    }
    return this.#enqueue(argv, input, signal);
  }

  #enqueue(argv: readonly string[], input: (path: string) => Promise<void>, signal?: AbortSignal): Promise<ExecResult> {
    const result = this.#queue.then(() => this.#runOne(argv, input, signal));
    this.#queue = result.catch(() => undefined);
    return result;
  }

  /** Ends the shell (and deletes its files); a later `run` starts a new one. */
  async close(): Promise<void> {
    // Held on the event loop until the shell is gone: an unreferenced child would let a program
    // whose last work is this close exit before the shell does.
    this.#current?.shell.ref();
    const running = this.#running;
    this.#running = undefined;
    this.#current = undefined;
    if (running === undefined) return;
    const r = await running.catch(() => undefined);
    if (r === undefined) return;
    const exited = new Promise<void>((resolve) => {
      if (r.shell.exitCode !== null || r.shell.signalCode !== null) resolve();
      else r.shell.once('close', () => resolve());
    });
    r.shell.ref();
    r.shell.stdin.end();
    await exited;
    await rm(r.dir, { recursive: true, force: true });
  }

  async #runOne(
    argv: readonly string[],
    input: (path: string) => Promise<void>,
    signal: AbortSignal | undefined,
  ): Promise<ExecResult> {
    signal?.throwIfAborted();
    const r = await (this.#running ??= this.#start());
    await input(join(r.dir, 'in'));
    signal?.throwIfAborted();
    const line =
      r.failed !== undefined
        ? Promise.resolve(r.failed)
        : new Promise<string | Error>((resolve) => r.waiting.push(resolve));
    const onAbort = (): void => this.#kill(r, signal?.reason ?? new Error(`${argv[0]} was aborted`));
    signal?.addEventListener('abort', onAbort, { once: true });
    // Referenced while a command runs (the program waits for it), not while the shell idles.
    (r.shell.stdout as Socket).ref();
    try {
      r.shell.stdin.write(`${argv.join(' ')}\n`);
      const answer = await line;
      if (answer instanceof Error) throw answer;
      const exitCode = Number(answer);
      if (!Number.isInteger(exitCode)) throw new Error(`the command shell answered ${JSON.stringify(answer)}`);
      const [stdout, stderr] = await Promise.all([
        readFile(join(r.dir, 'out'), 'utf8'),
        readFile(join(r.dir, 'err'), 'utf8'),
      ]);
      // 126/127: the shell could not run the program (what a spawn reports as an error).
      if (exitCode === 127 || exitCode === 126) throw new Error(`cannot run ${argv.join(' ')}: ${stderr.trim()}`);
      return { exitCode, stdout, stderr };
    } finally {
      (r.shell.stdout as Socket).unref();
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async #start(): Promise<Running> {
    const dir = await mkdtemp(join(tmpdir(), 'kpng-nft-shell-'));
    const [file, ...args] = [...this.#prefix, 'sh', '-c', SCRIPT];
    // Its own process group, so an abort also ends the command it runs.
    const shell: Shell = spawn(file!, args, {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, D: dir, LC_ALL: 'C' },
      detached: true,
    });
    // No handle on the event loop: an idle shell never keeps the program alive.
    shell.unref();
    (shell.stdout as Socket).unref();
    (shell.stdin as Socket).unref();
    const lines = createInterface({ input: shell.stdout });
    const running: Running = { shell, dir, lines, waiting: [] };
    lines.on('line', (line) => running.waiting.shift()?.(line));
    const fail = (error: Error): void => {
      running.failed ??= error;
      this.#forget(running);
      for (const waiter of running.waiting.splice(0)) waiter(error);
      void rm(dir, { recursive: true, force: true });
    };
    shell.on('error', (e) => fail(new Error(`cannot start the command shell: ${e.message}`, { cause: e })));
    shell.on('close', (code, sig) => fail(new Error(`the command shell exited (${sig ?? String(code)})`)));
    shell.stdin.on('error', () => undefined); // an exited shell is reported through 'close'
    this.#current = running;
    return running;
  }

  /** A shell that failed or was killed is not used again: the next command starts a new one. */
  #forget(r: Running): void {
    if (r !== this.#current) return;
    this.#current = undefined;
    this.#running = undefined;
  }

  #kill(r: Running, reason: unknown): void {
    this.#forget(r);
    for (const waiter of r.waiting.splice(0)) waiter(reason instanceof Error ? reason : new Error(String(reason)));
    try {
      if (r.shell.pid !== undefined) process.kill(-r.shell.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
