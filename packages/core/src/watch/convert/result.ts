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

/** `build()` runs only when no field error was recorded, so it may rely on every read value. */
export function finish<T>(fields: FieldErrors, build: () => T): Converted<T> {
  return fields.ok ? converted(build()) : rejected(fields.errors);
}
