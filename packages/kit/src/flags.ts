/**
 * The one command-line tokenizer: argv split into flags (each with its value text) and the other
 * arguments, in the two dialects kpng's programs speak. Converting values, defaults and the error
 * wording stay with each program; the syntax is here once.
 *
 * - `pflag` (kube-proxy, spf13/pflag): `--name=value`, `--name value`, a boolean as `--name` (or
 *   `--name=false`); one dash is a one-letter shorthand: `-v=2`, `-v 2`, `-v2`, `-h`. Other
 *   arguments may come anywhere; `--` ends the flags.
 * - `go` (the test clients, Go's `flag`): one or two dashes before a long name (`-Name=value`,
 *   `--Name value`, `-Bool`); the flags end at the first other argument (or `-`, or after `--`).
 *
 * There is no `--no-name` negation: no kpng program (nor pflag, nor Go's flag) has one.
 */
export interface FlagShape {
  /** A boolean flag takes no separate argument: `--name` means `--name=true`. */
  readonly isBool: boolean;
}

export interface FlagDialect<S extends FlagShape> {
  readonly dialect: 'pflag' | 'go';
  /** The flag of a long name, if defined. */
  long(name: string): S | undefined;
  /** pflag only: the flag of a one-letter shorthand, if defined. */
  short?(letter: string): S | undefined;
}

export type FlagToken<S extends FlagShape> =
  | {
      readonly kind: 'flag';
      readonly spec: S;
      /** The name as given (a long name or a shorthand letter). */
      readonly name: string;
      readonly shorthand: boolean;
      /** The value text: after `=`, the next argument, the rest of a shorthand (`-v2`), or `true` for a bare boolean. */
      readonly value: string;
      /** False for a bare boolean (`--name`, `-h`), whose value `true` was implied. */
      readonly given: boolean;
    }
  /** Arguments that are not flags: one at a time in pflag (flags may follow), all the rest at once in go. */
  | { readonly kind: 'args'; readonly args: readonly string[] };

export type FlagSyntaxReason = 'bad-syntax' | 'unknown' | 'needs-argument';

/** An argument the dialect cannot read; each program words it as its upstream does. */
export class FlagSyntaxError extends Error {
  constructor(
    readonly reason: FlagSyntaxReason,
    /** The argument as given. */
    readonly arg: string,
    /** The flag name (or shorthand letter) concerned; '' for bad syntax. */
    readonly flag: string,
    readonly shorthand: boolean,
  ) {
    super(`${reason}: ${arg}`);
    this.name = 'FlagSyntaxError';
  }
}

/**
 * The flags and other arguments of `argv`, in order, read lazily: a program that acts on a token
 * (`--help`) before reading further sees the tokens before any error after them.
 */
export function* tokenizeFlags<S extends FlagShape>(
  argv: readonly string[],
  dialect: FlagDialect<S>,
): Generator<FlagToken<S>, void, undefined> {
  const go = dialect.dialect === 'go';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      yield { kind: 'args', args: argv.slice(i + 1) };
      return;
    }
    if (!arg.startsWith('-') || arg === '-') {
      if (go) {
        yield { kind: 'args', args: argv.slice(i) };
        return;
      }
      yield { kind: 'args', args: [arg] };
      continue;
    }
    const next = (flag: string, shorthand: boolean): string => {
      if (i + 1 >= argv.length) throw new FlagSyntaxError('needs-argument', arg, flag, shorthand);
      return argv[++i] as string;
    };
    if (go || arg.startsWith('--')) {
      const body = arg.slice(arg.startsWith('--') ? 2 : 1);
      const eq = body.indexOf('=');
      const name = eq < 0 ? body : body.slice(0, eq);
      if (name === '' || name.startsWith('-')) throw new FlagSyntaxError('bad-syntax', arg, '', false);
      const spec = dialect.long(name);
      if (spec === undefined) throw new FlagSyntaxError('unknown', arg, name, false);
      const given = eq >= 0 || !spec.isBool;
      const value = eq >= 0 ? body.slice(eq + 1) : spec.isBool ? 'true' : next(name, false);
      yield { kind: 'flag', spec, name, shorthand: false, value, given };
      continue;
    }
    const letter = arg[1] as string;
    const spec = dialect.short?.(letter);
    if (spec === undefined) throw new FlagSyntaxError('unknown', arg, letter, true);
    const rest = arg.slice(2);
    let value: string;
    if (rest.startsWith('=')) value = rest.slice(1);
    else if (rest !== '') {
      // Combined shorthands (`-vh`) are not read: the second letter is reported as unknown.
      if (spec.isBool) throw new FlagSyntaxError('unknown', arg, rest[0] as string, true);
      value = rest;
    } else value = spec.isBool ? 'true' : next(letter, true);
    yield { kind: 'flag', spec, name: letter, shorthand: true, value, given: !(spec.isBool && rest === '') };
  }
}
