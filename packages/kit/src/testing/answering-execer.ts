import type { Execer, ExecResult } from '../exec.js';

export type Answer = Partial<ExecResult> | ((line: string, stdin: string) => Partial<ExecResult>);

/**
 * An `Execer` that answers each command by the first argv prefix (the argv joined with spaces)
 * it was given an answer for, and fails on any other: for code that runs the same commands in an
 * order that is not the point of the test. Records every command line and its stdin.
 */
export class AnsweringExecer implements Execer {
  readonly #answers: ReadonlyMap<string, Answer>;
  readonly calls: string[] = [];
  readonly stdins: string[] = [];

  constructor(answers: Readonly<Record<string, Answer>>) {
    this.#answers = new Map(Object.entries(answers));
  }

  async run(argv: readonly string[], stdin: string): Promise<ExecResult> {
    const line = argv.join(' ');
    this.calls.push(line);
    this.stdins.push(stdin);
    const key = [...this.#answers.keys()].find((prefix) => line.startsWith(prefix));
    if (key === undefined) throw new Error(`unexpected command: ${line}`);
    const answer = this.#answers.get(key) as Answer;
    return { exitCode: 0, stdout: '', stderr: '', ...(typeof answer === 'function' ? answer(line, stdin) : answer) };
  }
}
