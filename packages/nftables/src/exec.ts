export interface ExecResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The one seam through which the library starts processes. Tests substitute a scripted fake that
 * checks each call's argv and stdin; production uses `processExecer`.
 */
export interface Execer {
  /**
   * Runs `argv` with `stdin` and resolves with its exit code and output, also when the exit code
   * is non-zero. Rejects only when the process cannot be started or is aborted.
   */
  run(argv: readonly string[], stdin: string, signal?: AbortSignal): Promise<ExecResult>;
  /**
   * Optional: `run` with stdin given in pieces, taken one at a time (a full sync's transaction is
   * tens of MiB of text and objects when held whole). The command starts only once the last piece
   * was taken, so its input is complete; if `stdin` throws, the command never starts and the call
   * rejects with that error. Without it, `runChunked` joins the pieces and calls `run`.
   */
  runStream?(argv: readonly string[], stdin: AsyncIterable<string>, signal?: AbortSignal): Promise<ExecResult>;
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

export const processExecer: Execer = {
  async run(argv, stdin, signal) {
    const [file, ...args] = argv;
    if (file === undefined) throw new Error('empty argv');
    // Loaded at the first process started: ~20 MiB of resident memory that a program whose nft runs
    // in the backend's long-lived shell would otherwise load for nothing at start.
    const { execa } = await import('execa');
    const result = await execa(file, args, {
      input: stdin,
      reject: false,
      stripFinalNewline: false,
      ...(signal === undefined ? {} : { cancelSignal: signal }),
    });
    if (result.isCanceled) throw signal?.reason ?? new Error(`${file} was aborted`);
    if (result.exitCode === undefined)
      throw new Error(`cannot run ${argv.join(' ')}: ${result.message}`, { cause: result.cause });
    return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
  },
};
