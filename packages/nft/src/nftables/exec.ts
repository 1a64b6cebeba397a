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
