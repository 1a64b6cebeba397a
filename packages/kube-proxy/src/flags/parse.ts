/**
 * kube-proxy's command line as pflag reads it: `--flag=value`, `--flag value`, booleans as
 * `--flag` or `--flag=false`, shorthands `-v 2`, `-v=2`, `-v2`, `-h`; `--` ends the flags.
 * Errors name the flag and the value, in pflag's words.
 */
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
  const set = (spec: FlagSpec, text: string, shown: string) => {
    try {
      parsed.set(spec, spec.parse(text, parsed.get(spec.name)));
    } catch (e) {
      throw new FlagError(`invalid argument ${JSON.stringify(text)} for "${shown}" flag: ${(e as Error).message}`);
    }
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = (): string | undefined => (i + 1 < argv.length ? argv[++i] : undefined);
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const body = arg.slice(2);
      const eq = body.indexOf('=');
      const name = eq < 0 ? body : body.slice(0, eq);
      if (name === '' || name.startsWith('-') || name.startsWith('=')) throw new FlagError(`bad flag syntax: ${arg}`);
      const spec = flagNamed(name);
      if (!spec) throw new FlagError(`unknown flag: --${name}`);
      const shown = spec.shorthand ? `-${spec.shorthand}, --${spec.name}` : `--${spec.name}`;
      if (eq >= 0) set(spec, body.slice(eq + 1), shown);
      else if (spec.isBool) set(spec, 'true', shown);
      else {
        const value = next();
        if (value === undefined) throw new FlagError(`flag needs an argument: --${name}`);
        set(spec, value, shown);
      }
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      const letter = arg[1]!;
      const spec = flagWithShorthand(letter);
      if (!spec) throw new FlagError(`unknown shorthand flag: '${letter}' in ${arg}`);
      const shown = `-${letter}, --${spec.name}`;
      const rest = arg.slice(2);
      if (rest.startsWith('=')) set(spec, rest.slice(1), shown);
      else if (rest !== '') {
        if (spec.isBool) throw new FlagError(`unknown shorthand flag: '${rest[0]}' in ${arg}`);
        set(spec, rest, shown);
      } else if (spec.isBool) set(spec, 'true', shown);
      else {
        const value = next();
        if (value === undefined) throw new FlagError(`flag needs an argument: '${letter}' in -${letter}`);
        set(spec, value, shown);
      }
      continue;
    }
    positionals.push(arg);
  }
  if (positionals.length > 0) {
    throw new FlagError(
      `"kube-proxy" does not take any arguments, got [${positionals.map((p) => JSON.stringify(p)).join(' ')}]`,
    );
  }
  return parsed;
}
