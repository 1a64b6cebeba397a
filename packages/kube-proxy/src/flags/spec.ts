/** One command-line flag: how it parses and where its value goes. */
import type { KubeProxyConfiguration } from '../config/types.js';

export interface FlagSpec {
  readonly name: string;
  /** One letter: `-v`, `-h`. */
  readonly shorthand?: string;
  /** For --help: `string`, `duration`, `int32`, … (empty for booleans). */
  readonly type: string;
  /** Takes no argument unless written `--flag=value`. */
  readonly isBool: boolean;
  readonly usage: string;
  readonly defaultText?: string;
  /** Printed as a warning when used (pflag's MarkDeprecated). */
  readonly deprecated?: string;
  /** Hidden from --help (kpng's own test hooks). */
  readonly hidden?: boolean;
  /** Honoured even when --config is given; upstream ignores every other flag then. */
  readonly withConfig?: boolean;
  /** One occurrence; `previous` is the value so far (lists and maps accumulate). */
  parse(text: string, previous: unknown): unknown;
  /** Writes the value into the configuration. Absent: read by name (see `complete.ts`). */
  readonly apply?: (config: KubeProxyConfiguration, value: unknown) => void;
}

type Apply<T> = (config: KubeProxyConfiguration, value: T) => void;
type Extra = Partial<Pick<FlagSpec, 'shorthand' | 'defaultText' | 'deprecated' | 'hidden' | 'withConfig'>>;

export function valueFlag<T>(
  name: string,
  type: string,
  parse: (text: string, previous: unknown) => T,
  usage: string,
  apply?: Apply<T>,
  extra: Extra = {},
): FlagSpec {
  return { name, type, isBool: false, usage, parse, ...(apply ? { apply: (c, v) => apply(c, v as T) } : {}), ...extra };
}

export function boolFlag(
  name: string,
  parse: (text: string) => boolean | string,
  usage: string,
  apply?: Apply<boolean>,
  extra: Extra = {},
): FlagSpec {
  return {
    name,
    type: '',
    isBool: true,
    usage,
    parse: (text) => parse(text),
    ...(apply ? { apply: (c, v) => apply(c, v as boolean) } : {}),
    ...extra,
  };
}
