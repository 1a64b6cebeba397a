import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Execer, ExecResult } from '@kpng/kit';
import { LongLivedExecer, type Framer, type Started } from './long-lived-execer.js';

export interface InteractiveNftExecerOptions {
  /** How nft is started, e.g. `['ip', 'netns', 'exec', NS]` to run it inside NS. */
  readonly prefix?: readonly string[];
  /** The nft program (default `nft`, looked up in PATH). */
  readonly nftPath?: string;
  /** Runs every command other than a transaction (`nft -f -`): listings, `--check`, probes. */
  readonly fallback: Execer;
  /**
   * A transaction longer than this many bytes runs in a fresh `nft -f FILE` through `fallback`
   * (default 256 KiB): nft keeps the heap a transaction grew (measured: ~270 MiB after 8 MiB of
   * elements), so a long-lived nft would hold a full sync's memory for good.
   */
  readonly maxBytes?: number;
}

const DEFAULT_MAX_BYTES = 256 * 1024;

/**
 * After each request, a line nft cannot parse: nft answers it with a syntax error that echoes the
 * line, without a netlink message or a cache refresh, and only once the request before it is done.
 */
const MARKER = 'kpng-interactive-end';
/** The error nft prints above the echoed marker, and the caret line below it. */
const MARKER_ERROR = /^Error: /;
const CARETS = /^\s*\^+\s*$/;

/**
 * An `Execer` that runs nft's transactions (`nft -f -`) through one long-lived `nft -i` (started
 * once, inside the namespace when the prefix enters one; stderr merged into stdout), everything
 * else through `fallback`. A transaction is written to a file, and `include "FILE"` is one line of
 * nft's interactive input: nft parses and commits the whole file as one batch, so it keeps
 * `nft -f`'s semantics (one atomic transaction, errors located by `FILE:LINE:COL`), without a
 * process start (exec, dynamic linking, netlink set-up) per transaction. nft has no exit code per
 * line: a transaction failed when nft reported an `Error:` for it (warnings alone do not fail it),
 * and its answer ends at the marker's echo. nft checks the ruleset's generation before using its
 * cache, so changes made by other processes between transactions are seen. A long transaction
 * (a full sync) runs in a fresh `nft -f` instead (`maxBytes`).
 */
export class InteractiveNftExecer extends LongLivedExecer {
  protected readonly label = 'nft -i';
  readonly #prefix: readonly string[];
  readonly #nft: string;
  readonly #maxBytes: number;

  constructor(options: InteractiveNftExecerOptions) {
    super(options.fallback);
    this.#prefix = options.prefix ?? [];
    this.#nft = options.nftPath ?? 'nft';
    this.#maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  }

  protected command(): { readonly argv: readonly string[]; readonly env: NodeJS.ProcessEnv } {
    return { argv: [...this.#prefix, 'sh', '-c', 'exec "$0" -i 2>&1', this.#nft], env: {} };
  }

  protected framer(): Framer {
    let lines: string[] = [];
    let carets = false;
    return (line) => {
      if (carets && CARETS.test(line)) {
        carets = false;
        return undefined;
      }
      carets = false;
      if (line !== MARKER) {
        lines.push(line);
        return undefined;
      }
      // The marker's own error line is the last one before its echo.
      if (lines.length > 0 && MARKER_ERROR.test(lines[lines.length - 1]!)) lines.pop();
      carets = true;
      const answer = lines.join('\n');
      lines = [];
      return answer;
    };
  }

  protected accepts(argv: readonly string[]): true | string {
    return argv.length === 3 && argv[0] === this.#nft && argv[1] === '-f' && argv[2] === '-'
      ? true
      : `nft -i runs transactions only (${JSON.stringify(argv)})`;
  }

  protected fallbackArgv(argv: readonly string[]): readonly string[] {
    return [...this.#prefix, ...argv];
  }

  protected override async divert(_argv: readonly string[], started: Started): Promise<readonly string[] | undefined> {
    const path = join(started.dir, 'in');
    return (await stat(path)).size > this.#maxBytes ? [this.#nft, '-f', path] : undefined;
  }

  protected request(_argv: readonly string[], started: Started): string {
    // mkdtemp's folder under the temporary directory: no quote, no whitespace, no newline (checked).
    return `include "${started.dir}/in"\n${MARKER}\n`;
  }

  protected override checkDir(dir: string): string | undefined {
    return /^[\w./-]+$/.test(dir) ? undefined : `cannot include a file under ${JSON.stringify(dir)} in nft -i`;
  }

  protected result(_argv: readonly string[], answer: string): Promise<ExecResult> {
    const failed = answer.split('\n').some((line) => line.includes('Error:'));
    const stderr = answer === '' ? '' : `${answer}\n`;
    return Promise.resolve({ exitCode: failed ? 1 : 0, stdout: '', stderr });
  }
}
