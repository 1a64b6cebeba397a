// Not the kit's spawnChild: this process needs its own process group (detached, killed as a group on abort)
// and handles unreferenced while it idles (it must never keep a program alive); eslint names the exception.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { runChunked, type Execer, type ExecResult } from '@kpng/kit';

type Child = ChildProcessByStdio<Writable, Readable, null>;

/** One started process, as a subclass sees it: its files' folder. */
export interface Started {
  /** A private folder (deleted with the process): a command's input is written to `dir/in`. */
  readonly dir: string;
}

/** Turns the process's output lines into answers, one per command, in order. */
export type Framer = (line: string) => string | undefined;

interface Running extends Started {
  readonly child: Child;
  /** Waiters for the next answer, in order. */
  readonly waiting: ((answer: string | Error) => void)[];
  /** Why the process is gone (a spawn error can come before a command waits): later waiters get it. */
  failed?: Error;
  /** Output received since the last answer (for the error of a process that exits). */
  tail: string[];
}

/**
 * An `Execer` over one long-lived child process (started on first use, inside a namespace when
 * its command line enters one) that runs commands one at a time: each command's input is written
 * to a file, one request goes to the process's stdin, and its answer comes back on stdout. The
 * process ends when its stdin closes (the program exits, or `close()`), so it never outlives the
 * program; an idle process holds nothing on the event loop. A spawn failure, or the process
 * exiting, fails the command waiting (and the next one starts a new process); an abort kills the
 * process group. Subclasses say what to start, what to send and how to read the answer.
 */
export abstract class LongLivedExecer implements Execer {
  readonly #fallback: Execer | undefined;
  #running: Promise<Running> | undefined;
  /** The process `#running` resolved to. */
  #current: Running | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(fallback: Execer | undefined) {
    this.#fallback = fallback;
  }

  /** What the process is called in errors ("the command shell"). */
  protected abstract readonly label: string;
  /** The process's command line (with its prefix); `env` is added to the environment. */
  protected abstract command(started: Started): { readonly argv: readonly string[]; readonly env: NodeJS.ProcessEnv };
  /** A new framer for a new process. */
  protected abstract framer(): Framer;
  /**
   * Whether this process runs `argv` (`true`), or it goes to the fallback (a string: why not, the
   * error when there is no fallback). Here, before anything is queued.
   */
  protected abstract accepts(argv: readonly string[]): true | string;
  /** What to write to the process's stdin to run `argv` (its input is already in `dir/in`). */
  protected abstract request(argv: readonly string[], started: Started): string;
  /** The command's result from its answer. */
  protected abstract result(argv: readonly string[], answer: string, started: Started): Promise<ExecResult>;
  /** The prefix the fallback runs a command with (what enters the process's namespace). */
  protected abstract fallbackArgv(argv: readonly string[]): readonly string[];
  /**
   * Once the command's input is written (`dir/in`): a command line for the fallback to run instead
   * of this process (it runs while the queue waits, so the file stays), or nothing.
   */
  protected divert(_argv: readonly string[], _started: Started): Promise<readonly string[] | undefined> {
    return Promise.resolve(undefined);
  }
  /** Why the process cannot use this folder for its files, if it cannot. */
  protected checkDir(_dir: string): string | undefined {
    return undefined;
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
   * was rendered), the command is never run.
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

  /** Ends the process (and deletes its files); a later `run` starts a new one. */
  async close(): Promise<void> {
    // Held on the event loop until the process is gone: an unreferenced child would let a program
    // whose last work is this close exit before it does.
    this.#current?.child.ref();
    const running = this.#running;
    this.#running = undefined;
    this.#current = undefined;
    if (running === undefined) return;
    const r = await running.catch(() => undefined);
    if (r === undefined) return;
    const exited = new Promise<void>((resolve) => {
      if (r.child.exitCode !== null || r.child.signalCode !== null) resolve();
      else r.child.once('close', () => resolve());
    });
    r.child.ref();
    r.child.stdin.end();
    await exited;
    await rm(r.dir, { recursive: true, force: true });
  }

  /** Queues `argv` for the process, or hands what it does not run to the fallback. */
  #dispatch(
    argv: readonly string[],
    input: (path: string) => Promise<void>,
    fallback: (execer: Execer, argv: readonly string[]) => Promise<ExecResult>,
    signal: AbortSignal | undefined,
  ): Promise<ExecResult> {
    if (argv.length === 0) return Promise.reject(new Error('empty argv'));
    const accepted = this.accepts(argv);
    if (accepted !== true) {
      if (this.#fallback === undefined) return Promise.reject(new Error(accepted));
      return fallback(this.#fallback, this.fallbackArgv(argv));
    }
    const result = this.#queue.then(() => this.#runOne(argv, input, signal));
    this.#queue = result.catch(() => undefined);
    return result;
  }

  async #runOne(
    argv: readonly string[],
    input: (path: string) => Promise<void>,
    signal: AbortSignal | undefined,
  ): Promise<ExecResult> {
    signal?.throwIfAborted();
    const starting = (this.#running ??= this.#start());
    const r = await starting.catch((e: unknown) => {
      if (this.#running === starting) this.#running = undefined;
      throw e;
    });
    // A process that failed meanwhile deletes its folder: its error, not the file's, is the answer.
    const diverted = await (async () => {
      await input(join(r.dir, 'in'));
      signal?.throwIfAborted();
      return this.#fallback === undefined || r.failed !== undefined ? undefined : await this.divert(argv, r);
    })().catch((e: unknown) => {
      throw r.failed ?? e;
    });
    if (diverted !== undefined) return this.#fallback!.run(this.fallbackArgv(diverted), '', signal);
    const answer =
      r.failed !== undefined
        ? Promise.resolve(r.failed)
        : new Promise<string | Error>((resolve) => r.waiting.push(resolve));
    const onAbort = (): void => this.#kill(r, signal?.reason ?? new Error(`${argv[0]} was aborted`));
    signal?.addEventListener('abort', onAbort, { once: true });
    // Referenced while a command runs (the program waits for it), not while the process idles.
    (r.child.stdout as Socket).ref();
    try {
      r.child.stdin.write(this.request(argv, r));
      const text = await answer;
      if (text instanceof Error) throw text;
      return await this.result(argv, text, r);
    } finally {
      (r.child.stdout as Socket).unref();
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async #start(): Promise<Running> {
    const dir = await mkdtemp(join(tmpdir(), 'kpng-nft-shell-'));
    const problem = this.checkDir(dir);
    if (problem !== undefined) {
      await rm(dir, { recursive: true, force: true });
      throw new Error(problem);
    }
    const { argv, env } = this.command({ dir });
    const [file, ...args] = argv;
    // Its own process group, so an abort also ends the command it runs.
    const child: Child = spawn(file!, args, {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, ...env, LC_ALL: 'C' },
      detached: true,
    });
    // No handle on the event loop: an idle process never keeps the program alive.
    child.unref();
    (child.stdout as Socket).unref();
    (child.stdin as Socket).unref();
    const running: Running = { child, dir, waiting: [], tail: [] };
    const frame = this.framer();
    createInterface({ input: child.stdout }).on('line', (line) => {
      const answer = frame(line);
      if (answer === undefined) {
        if (running.tail.push(line) > 20) running.tail.shift();
        return;
      }
      running.tail = [];
      running.waiting.shift()?.(answer);
    });
    const fail = (error: Error): void => {
      running.failed ??= error;
      this.#forget(running);
      for (const waiter of running.waiting.splice(0)) waiter(error);
      void rm(dir, { recursive: true, force: true });
    };
    child.on('error', (e) => fail(new Error(`cannot start ${this.label}: ${e.message}`, { cause: e })));
    child.on('close', (code, sig) => {
      const said = running.tail.join('\n').trim();
      fail(new Error(`${this.label} exited (${sig ?? String(code)})${said === '' ? '' : `: ${said}`}`));
    });
    child.stdin.on('error', () => undefined); // an exited process is reported through 'close'
    this.#current = running;
    return running;
  }

  /** A process that failed or was killed is not used again: the next command starts a new one. */
  #forget(r: Running): void {
    if (r !== this.#current) return;
    this.#current = undefined;
    this.#running = undefined;
  }

  #kill(r: Running, reason: unknown): void {
    this.#forget(r);
    for (const waiter of r.waiting.splice(0)) waiter(reason instanceof Error ? reason : new Error(String(reason)));
    try {
      if (r.child.pid !== undefined) process.kill(-r.child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
