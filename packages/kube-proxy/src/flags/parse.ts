/**
 * kube-proxy's command line as pflag reads it: `--flag=value`, `--flag value`, booleans as
 * `--flag` or `--flag=false`, shorthands `-v 2`, `-v=2`, `-v2`, `-h`; `--` ends the flags.
 * Errors name the flag and the value, in pflag's words.
 */
import { FlagSyntaxError, tokenizeFlags } from '@kpng/kit';
import { flagNamed, flagWithShorthand } from './table.js';
import type { FlagSpec } from './spec.js';

export class FlagError extends Error {
  override readonly name = 'FlagError';
}

/** The flags given, each with its final value (lists and maps accumulated), in first-use order. */
export class ParsedFlags {
  readonly #values = new Map<string, unknown>();

  set(spec: FlagSpec, value: unknown): void {
    this.#values.set(spec.name, value);
  }
  has(name: string): boolean {
    return this.#values.has(name);
  }
  get<T>(name: string): T | undefined {
    return this.#values.get(name) as T | undefined;
  }
  /** Names of the flags given, in the order they first appeared. */
  names(): string[] {
    return [...this.#values.keys()];
  }
}

export function parseFlags(argv: readonly string[]): ParsedFlags {
  const parsed = new ParsedFlags();
  const positionals: string[] = [];
  const dialect = { dialect: 'pflag', long: flagNamed, short: flagWithShorthand } as const;
  try {
    for (const token of tokenizeFlags(argv, dialect)) {
      if (token.kind === 'args') {
        positionals.push(...token.args);
        continue;
      }
      const { spec, value } = token;
      const shown = spec.shorthand ? `-${spec.shorthand}, --${spec.name}` : `--${spec.name}`;
      try {
        parsed.set(spec, spec.parse(value, parsed.get(spec.name)));
      } catch (e) {
        throw new FlagError(`invalid argument ${JSON.stringify(value)} for "${shown}" flag: ${(e as Error).message}`);
      }
    }
  } catch (e) {
    if (e instanceof FlagSyntaxError) throw new FlagError(pflagMessage(e));
    throw e;
  }
  if (positionals.length > 0) {
    throw new FlagError(
      `"kube-proxy" does not take any arguments, got [${positionals.map((p) => JSON.stringify(p)).join(' ')}]`,
    );
  }
  return parsed;
}

/** pflag's words for what the tokenizer could not read. */
function pflagMessage(e: FlagSyntaxError): string {
  switch (e.reason) {
    case 'bad-syntax':
      return `bad flag syntax: ${e.arg}`;
    case 'unknown':
      return e.shorthand ? `unknown shorthand flag: '${e.flag}' in ${e.arg}` : `unknown flag: --${e.flag}`;
    case 'needs-argument':
      return e.shorthand ? `flag needs an argument: '${e.flag}' in -${e.flag}` : `flag needs an argument: --${e.flag}`;
  }
}
