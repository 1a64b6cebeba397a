import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Execer, ExecResult } from '@kpng/kit';
import { LongLivedExecer, type Framer, type Started } from './long-lived-execer.js';

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

/**
 * An `Execer` that starts one long-lived shell (inside the namespace, when the prefix enters one) and
 * has it run each command: a command costs the shell's fork and exec of `nft`, not a fork of this
 * (big) process plus `ip netns exec`'s namespace set-up (the figures: the kpng repository's
 * docs/PERFORMANCE.md). Each
 * command is still its own `nft` process with its own stdin, so `nft -f -` keeps its semantics: one
 * atomic transaction, errors located by line, its exit code. Commands run one at a time.
 */
export class ShellExecer extends LongLivedExecer {
  protected readonly label = 'the command shell';
  readonly #prefix: readonly string[];

  constructor(options: ShellExecerOptions = {}) {
    super(options.fallback);
    this.#prefix = options.prefix ?? [];
  }

  protected command(started: Started): { readonly argv: readonly string[]; readonly env: NodeJS.ProcessEnv } {
    return { argv: [...this.#prefix, 'sh', '-c', SCRIPT], env: { D: started.dir } };
  }

  protected framer(): Framer {
    return (line) => line;
  }

  protected accepts(argv: readonly string[]): true | string {
    return argv.every((arg) => arg !== '' && !/\s/.test(arg))
      ? true
      : `cannot pass ${JSON.stringify(argv)} to the shell: whitespace or empty`;
  }

  protected fallbackArgv(argv: readonly string[]): readonly string[] {
    return [...this.#prefix, ...argv];
  }

  protected request(argv: readonly string[]): string {
    return `${argv.join(' ')}\n`;
  }

  protected async result(argv: readonly string[], answer: string, started: Started): Promise<ExecResult> {
    const exitCode = Number(answer);
    if (!Number.isInteger(exitCode)) throw new Error(`the command shell answered ${JSON.stringify(answer)}`);
    const [stdout, stderr] = await Promise.all([
      readFile(join(started.dir, 'out'), 'utf8'),
      readFile(join(started.dir, 'err'), 'utf8'),
    ]);
    // 126/127: the shell could not run the program (what a spawn reports as an error).
    if (exitCode === 127 || exitCode === 126) throw new Error(`cannot run ${argv.join(' ')}: ${stderr.trim()}`);
    return { exitCode, stdout, stderr };
  }
}
