import type { FieldErrors } from './fields.js';

/** The outcome of converting one raw object: a model value, or every problem found in it. */
export type Converted<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly errors: readonly string[] };

export function converted<T>(value: T): Converted<T> {
  return { ok: true, value };
}

export function rejected<T>(errors: readonly string[]): Converted<T> {
  return { ok: false, errors };
}

/**
 * A converted value that must also pass `problems` (validate.ts, the checks every door shares): a
 * conversion builds objects that pass them, and this keeps it so.
 */
export function validated<T>(
  result: Converted<T>,
  problems: (value: NonNullable<T>) => readonly string[],
): Converted<T> {
  if (!result.ok || result.value === null || result.value === undefined) return result;
  const found = problems(result.value as NonNullable<T>);
  return found.length === 0 ? result : rejected(found);
}

/** `build()` runs only when no field error was recorded, so it may rely on every read value. */
export function finish<T>(fields: FieldErrors, build: () => T): Converted<T> {
  return fields.ok ? converted(build()) : rejected(fields.errors);
}
