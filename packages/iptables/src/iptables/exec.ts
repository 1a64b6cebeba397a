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
}

export const processExecer: Execer = {
  async run(argv, stdin, signal) {
    const [file, ...args] = argv;
    if (file === undefined) throw new Error('empty argv');
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
