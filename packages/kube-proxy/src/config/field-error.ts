/**
 * Validation errors printed the way apimachinery's `field.Error` prints them:
 * `<path>: Invalid value: <value>: <detail>` and `<path>: Unsupported value: "x": supported values: "a", "b"`,
 * several of them as an aggregate `[e1, e2]`.
 */
import { formatGoDuration } from '@kpng/kit';

export const ROOT = 'KubeProxyConfiguration';

export type ErrorValue = string | number | boolean | { readonly duration: number } | readonly string[];

export class FieldError {
  constructor(
    /** `KubeProxyConfiguration.nftables.syncPeriod` */
    readonly field: string,
    readonly message: string,
  ) {}

  toString(): string {
    return `${this.field}: ${this.message}`;
  }
}

export function fieldPath(...parts: readonly (string | number)[]): string {
  return parts.reduce<string>(
    (path, part) => (typeof part === 'number' ? `${path}[${part}]` : `${path}.${part}`),
    ROOT,
  );
}

export function invalid(field: string, value: ErrorValue, detail: string): FieldError {
  return new FieldError(field, `Invalid value: ${formatValue(value)}: ${detail}`);
}

export function notSupported(field: string, value: string, supported: readonly string[]): FieldError {
  const list = supported.map((s) => JSON.stringify(s)).join(', ');
  return new FieldError(field, `Unsupported value: ${JSON.stringify(value)}: supported values: ${list}`);
}

/** Strings quoted, numbers and booleans bare, durations in Go syntax, lists as Go prints `[]string`. */
export function formatValue(value: ErrorValue): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[]string{${value.map((s) => JSON.stringify(s)).join(', ')}}`;
  return formatGoDuration((value as { duration: number }).duration);
}

/** `errs.ToAggregate().Error()`: one error alone, several in brackets. */
export function aggregate(errors: readonly { toString(): string }[]): string {
  const texts = [...new Set(errors.map(String))];
  return texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`;
}
