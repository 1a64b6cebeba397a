import { FlagSyntaxError, formatGoDuration, parseDurationMs, tokenizeFlags } from '@kpng/kit';

/**
 * Command-line flags the way Go's `flag` package reads them, so upstream invocations work
 * unchanged: `-Name=value`, `-Name value`, `--Name=value`, booleans as `-Name` or `-Name=false`;
 * parsing stops at the first non-flag argument or after `--`. Every flag also has a kebab-case
 * alias (`--target-namespace`), accepted with one or two dashes.
 */

export type FlagKind = 'string' | 'int' | 'bool' | 'duration';
type ValueOf<K extends FlagKind> = K extends 'string' ? string : K extends 'bool' ? boolean : number;

export interface FlagSpec<K extends FlagKind = FlagKind> {
  /** The upstream (CamelCase) name, e.g. `TargetNamespace`. */
  readonly name: string;
  /** The kebab-case alias, e.g. `target-namespace`. */
  readonly alias: string;
  readonly kind: K;
  readonly default: ValueOf<K>;
  readonly usage: string;
}

export class FlagError extends Error {
  override readonly name = 'FlagError';
}

/** `-help`, `-h` or `--help` was given. */
export class HelpRequested extends Error {
  override readonly name = 'HelpRequested';
}

/** `-version` or `--version` was given (a kpng addition; upstream's clients have no such flag). */
export class VersionRequested extends Error {
  override readonly name = 'VersionRequested';
}

export type FlagValues = ReadonlyMap<string, string | number | boolean>;

export class FlagSet {
  readonly #specs: FlagSpec[] = [];

  constructor(readonly program: string) {}

  define<K extends FlagKind>(spec: FlagSpec<K>): this {
    const clash = this.#specs.find((s) => [s.name, s.alias].some((n) => n === spec.name || n === spec.alias));
    if (clash) throw new Error(`flag ${spec.name} defined twice`);
    this.#specs.push(spec as FlagSpec);
    return this;
  }

  get specs(): readonly FlagSpec[] {
    return this.#specs;
  }

  /** Parses `argv` (without node and script). Throws FlagError or HelpRequested. */
  parse(argv: readonly string[]): ParsedFlags {
    const values = new Map<string, string | number | boolean>();
    for (const spec of this.#specs) values.set(spec.name, spec.default);
    const set = new Set<string>();
    let args: readonly string[] = [];
    // help, h and version are not flags of the set: the tokenizer sees them as booleans, and they
    // act where they appear (an error before them wins, as in Go's flag).
    const long = (name: string): { readonly isBool: boolean; readonly spec?: FlagSpec } | undefined => {
      const spec = this.lookup(name);
      if (spec !== undefined) return { isBool: spec.kind === 'bool', spec };
      return ['help', 'h', 'version'].includes(name) ? { isBool: true } : undefined;
    };
    try {
      for (const token of tokenizeFlags(argv, { dialect: 'go', long })) {
        if (token.kind === 'args') {
          args = token.args;
          break;
        }
        const { name, value } = token;
        const spec = token.spec.spec;
        if (spec === undefined) {
          if (name === 'version') throw new VersionRequested();
          throw new HelpRequested(this.usage());
        }
        values.set(spec.name, convert(spec, value, name));
        set.add(spec.name);
      }
    } catch (e) {
      if (e instanceof FlagSyntaxError) throw new FlagError(goFlagMessage(e));
      throw e;
    }
    return new ParsedFlags(values, set, args);
  }

  lookup(name: string): FlagSpec | undefined {
    return this.#specs.find((s) => s.name === name || s.alias === name);
  }

  usage(): string {
    const lines = [`Usage of ${this.program}:`];
    for (const spec of [...this.#specs].sort((a, b) => a.name.localeCompare(b.name))) {
      const type =
        spec.kind === 'bool'
          ? ''
          : ` ${spec.kind === 'duration' ? 'duration' : spec.kind === 'int' ? 'int' : 'string'}`;
      lines.push(`  -${spec.name}${type}   (alias --${spec.alias})`);
      lines.push(`    \t${spec.usage}${defaultText(spec)}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

export class ParsedFlags {
  constructor(
    private readonly values: Map<string, string | number | boolean>,
    private readonly explicitly: ReadonlySet<string>,
    /** Arguments after the flags. */
    readonly args: readonly string[],
  ) {}

  string(name: string): string {
    return this.get(name, 'string') as string;
  }
  int(name: string): number {
    return this.get(name, 'number') as number;
  }
  /** Milliseconds. */
  duration(name: string): number {
    return this.get(name, 'number') as number;
  }
  bool(name: string): boolean {
    return this.get(name, 'boolean') as boolean;
  }
  /** Does this flag set define `name`? */
  has(name: string): boolean {
    return this.values.has(name);
  }

  /** Was the flag given on the command line (rather than left at its default)? */
  isSet(name: string): boolean {
    return this.explicitly.has(name);
  }

  /** Every flag as `--Name=value`, for the start-up log (upstream logs the same through VisitAll). */
  all(specs: readonly FlagSpec[]): Record<string, string | number | boolean> {
    const out: Record<string, string | number | boolean> = {};
    for (const spec of [...specs].sort((a, b) => a.name.localeCompare(b.name))) {
      const v = this.values.get(spec.name) as string | number | boolean;
      out[spec.name] = spec.kind === 'duration' ? formatGoDuration(v as number) : v;
    }
    return out;
  }

  private get(name: string, type: 'string' | 'number' | 'boolean'): unknown {
    const v = this.values.get(name);
    if (typeof v !== type) throw new Error(`flag ${name} is not defined as a ${type}`);
    return v;
  }
}

function convert(spec: FlagSpec, raw: string, given: string): string | number | boolean {
  switch (spec.kind) {
    case 'string':
      return raw;
    case 'int': {
      if (!/^[+-]?\d+$/.test(raw.trim()))
        throw new FlagError(`invalid value ${JSON.stringify(raw)} for flag -${given}: not an integer`);
      return Number(raw);
    }
    case 'bool': {
      const v = BOOL[raw];
      if (v === undefined) throw new FlagError(`invalid boolean value ${JSON.stringify(raw)} for -${given}`);
      return v;
    }
    case 'duration': {
      try {
        return parseDurationMs(raw);
      } catch {
        throw new FlagError(
          `invalid value ${JSON.stringify(raw)} for flag -${given}: not a duration (e.g. 100ms, 1s, 5m)`,
        );
      }
    }
  }
}

/** Go's strconv.ParseBool. */
const BOOL: Readonly<Record<string, boolean>> = {
  '1': true,
  t: true,
  T: true,
  true: true,
  TRUE: true,
  True: true,
  '0': false,
  f: false,
  F: false,
  false: false,
  FALSE: false,
  False: false,
};

function defaultText(spec: FlagSpec): string {
  if (spec.kind === 'bool') return spec.default ? ' (default true)' : '';
  if (spec.kind === 'string') return spec.default === '' ? '' : ` (default ${JSON.stringify(spec.default)})`;
  if (spec.kind === 'duration') return ` (default ${formatGoDuration(spec.default as number)})`;
  return spec.default === 0 ? '' : ` (default ${spec.default})`;
}

/** Go's flag package's words for what the tokenizer could not read. */
function goFlagMessage(e: FlagSyntaxError): string {
  switch (e.reason) {
    case 'bad-syntax':
      return `bad flag syntax: ${e.arg}`;
    case 'unknown':
      return `flag provided but not defined: -${e.flag}`;
    case 'needs-argument':
      return `flag needs an argument: -${e.flag}`;
  }
}
