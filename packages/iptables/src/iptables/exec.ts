import { execa } from 'execa';

export interface ExecResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The one seam through which the backend starts processes (`iptables-restore`, `iptables`,
 * `iptables-save`, `sysctl`, `conntrack`). Tests substitute `FakeIptables`, which enforces
 * iptables-restore's rules in memory; production uses `processExecer`.
 */
export interface Execer {
  /** Resolves with the exit code and output, also when non-zero; rejects only when the process cannot start. */
  run(argv: readonly string[], stdin: string, signal?: AbortSignal): Promise<ExecResult>;
  /**
   * Starts the process now and takes its input later (an execer without it gets `run` with the
   * whole input once it is complete: see `startProcess`).
   */
  start?(argv: readonly string[], signal?: AbortSignal): StartedProcess;
}

/** A process started before its input was ready: its input arrives in pieces, then `end`. */
export interface StartedProcess {
  write(chunk: string): void;
  /** Closes its input; resolves as `Execer.run` does. */
  end(): Promise<ExecResult>;
  /** Kills it before its input is complete (what it was not sent, it never sees). */
  kill(): void;
}

/** `execer.start`, or for an execer without it, the input gathered and given to `run` at `end` (nothing runs before). */
export function startProcess(execer: Execer, argv: readonly string[], signal?: AbortSignal): StartedProcess {
  if (execer.start !== undefined) return execer.start(argv, signal);
  const input: string[] = [];
  let killed = false;
  return {
    write: (chunk) => void input.push(chunk),
    end: () => (killed ? Promise.reject(new Error(`${argv[0]} was killed`)) : execer.run(argv, input.join(''), signal)),
    kill: () => void (killed = true),
  };
}

export const processExecer: Execer = {
  run(argv, stdin, signal) {
    const started = startChild(argv, signal);
    started.write(stdin);
    return started.end();
  },
  start: startChild,
};

function startChild(argv: readonly string[], signal?: AbortSignal): StartedProcess {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error('empty argv');
  const child = execa(file, args, {
    stdin: 'pipe',
    reject: false,
    stripFinalNewline: false,
    ...(signal === undefined ? {} : { cancelSignal: signal }),
  });
  // A process that exits before reading all its input (an error at line 1) closes the pipe: its
  // exit code and stderr say what happened, the EPIPE says nothing more.
  child.stdin.on('error', () => undefined);
  // Pieces are held until `end` and written together (one writev, not a pipe write per piece).
  child.stdin.cork();
  let killed = false;
  return {
    write: (chunk) => void child.stdin.write(chunk),
    async end() {
      child.stdin.uncork();
      child.stdin.end();
      const result = await child;
      if (result.isCanceled) throw signal?.reason ?? new Error(`${file} was aborted`);
      if (killed) throw new Error(`${file} was killed`);
      if (result.exitCode === undefined)
        throw new Error(`cannot run ${argv.join(' ')}: ${result.message}`, { cause: result.cause });
      return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
    },
    kill() {
      killed = true;
      child.kill('SIGKILL');
      // Nobody awaits a killed process's result: settle it here.
      child.catch(() => undefined);
    },
  };
}
