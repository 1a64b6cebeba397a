import { FlagSyntaxError, tokenizeFlags } from '@kpng/kit';
/** `npm run bench -- <scenario> [--suite a,b] [--runs N] [--warmup N] [--seed N] [--write FILE] [--list]`. */
export interface BenchArgs {
  readonly scenario?: string;
  readonly suites: readonly string[];
  readonly runs: number;
  readonly warmup: number;
  readonly seed: number;
  readonly write?: string;
  readonly list: boolean;
  readonly help: boolean;
  /** Unknown `--key=value` / `--flag` arguments, handed to suites. */
  readonly options: Readonly<Record<string, string | true>>;
}

export const USAGE = `usage: npm run bench -- <scenario> [options]
       npm run bench -- --list

  <scenario>          s1k | s10k | s10k-wide | churn
  --suite NAME[,NAME] run only these suites (repeatable; default: every suite that supports the scenario)
  --runs N            recorded runs per measurement (default 5)
  --warmup N          unrecorded runs first (default 1)
  --seed N            scenario seed (default 1)
  --write FILE        write the scenario to FILE (.yaml, .yml or .json) as a kind: List, run nothing
  --list              list scenarios and suites
  --key=value, --flag passed to suites (ctx.options)

stdout: one JSON object per measurement; stderr: progress and a summary table.
`;

const VALUE_FLAGS = new Set(['suite', 'runs', 'warmup', 'seed', 'write']);

function integer(flag: string, text: string, min: number): number {
  const value = Number(text);
  if (!/^-?\d+$/.test(text) || value < min) throw new Error(`--${flag} needs an integer >= ${min}, got "${text}"`);
  return value;
}

export function parseArgs(argv: readonly string[]): BenchArgs {
  const positional: string[] = [];
  const values: Record<string, string[]> = {};
  const options: Record<string, string | true> = {};
  let list = false;
  let help = false;
  // pflag's syntax; a flag the runner does not know takes no separate value (`--key=value` or `--flag`).
  const dialect = {
    dialect: 'pflag',
    long: (name: string) => ({ isBool: !VALUE_FLAGS.has(name) }),
    short: (letter: string) => (letter === 'h' ? { isBool: true } : undefined),
  } as const;
  try {
    for (const token of tokenizeFlags(argv, dialect)) {
      if (token.kind === 'args') positional.push(...token.args);
      else if (token.shorthand || token.name === 'help') help = true;
      else if (token.name === 'list') list = true;
      else if (VALUE_FLAGS.has(token.name)) {
        if (token.value === '') throw new Error(`--${token.name} needs a value`);
        (values[token.name] ??= []).push(token.value);
      } else options[token.name] = token.given ? token.value : true;
    }
  } catch (e) {
    if (!(e instanceof FlagSyntaxError)) throw e;
    if (e.reason === 'needs-argument') throw new Error(`--${e.flag} needs a value`);
    throw new Error(`cannot read ${JSON.stringify(e.arg)} (see --help)`);
  }
  if (positional.length > 1) throw new Error(`one scenario at a time, got: ${positional.join(' ')}`);
  const last = (key: string): string | undefined => values[key]?.at(-1);
  const runs = last('runs');
  const warmup = last('warmup');
  const seed = last('seed');
  const write = last('write');
  return {
    ...(positional[0] === undefined ? {} : { scenario: positional[0] }),
    suites: (values['suite'] ?? [])
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter(Boolean),
    runs: runs === undefined ? 5 : integer('runs', runs, 1),
    warmup: warmup === undefined ? 1 : integer('warmup', warmup, 0),
    seed: seed === undefined ? 1 : integer('seed', seed, 0),
    ...(write === undefined ? {} : { write }),
    list,
    help,
    options,
  };
}
