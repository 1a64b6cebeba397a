import { isDeepStrictEqual } from 'node:util';
import type { Execer, ExecResult } from '../exec.js';

export interface ScriptedCall {
  readonly argv: readonly string[];
  /** Expected stdin; omitted means "not checked". */
  readonly stdin?: string;
  /** Defaults to exit code 0 with empty output. */
  readonly result?: Partial<ExecResult>;
}

/**
 * An `Execer` that expects an exact, ordered script of calls and fails on any other: it proves
 * which argv and stdin reach a tool without the binary being present (knftables' fakeExec).
 */
export class ScriptedExecer implements Execer {
  readonly #script: ScriptedCall[];
  readonly calls: { readonly argv: readonly string[]; readonly stdin: string }[] = [];

  constructor(script: readonly ScriptedCall[]) {
    this.#script = [...script];
  }

  async run(argv: readonly string[], stdin: string): Promise<ExecResult> {
    this.calls.push({ argv: [...argv], stdin });
    const expected = this.#script.shift();
    if (expected === undefined) throw new Error(`unexpected call ${JSON.stringify(argv)}`);
    if (!isDeepStrictEqual([...argv], [...expected.argv])) {
      throw new Error(`expected argv ${JSON.stringify(expected.argv)}, got ${JSON.stringify(argv)}`);
    }
    if (expected.stdin !== undefined && stdin !== expected.stdin) {
      throw new Error(`expected stdin ${JSON.stringify(expected.stdin)}, got ${JSON.stringify(stdin)}`);
    }
    return { exitCode: 0, stdout: '', stderr: '', ...expected.result };
  }

  /** Calls the script still expects. */
  get remaining(): number {
    return this.#script.length;
  }
}
