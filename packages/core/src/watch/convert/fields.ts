/**
 * Typed reads from untrusted JSON that never throw: each read either returns a well-typed value or
 * records why not, as `path: problem, got value`, and returns undefined. A converter reads every
 * field it needs, then fails if any error was recorded, so one pass reports all problems at once.
 */

import { OBJECT_LIMITS } from './limits.js';

export type JsonObject = Readonly<Record<string, unknown>>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const MAX_SHOWN_CHARS = 64;
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** A short, bounded rendering of a bad value for an error message (a 1 MB string stays short). */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return value.length <= MAX_SHOWN_CHARS
        ? JSON.stringify(value)
        : `${JSON.stringify(value.slice(0, MAX_SHOWN_CHARS))}... (${value.length} characters)`;
    case 'number':
    case 'boolean':
      return String(value);
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

export function fieldPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return parent === '' ? key : `${parent}.${key}`;
}

interface Presence {
  /** Record "is required" when the value is missing (undefined or null). */
  readonly required?: boolean;
}

/** Problems kept per object: an object with 100,000 bad entries makes one bounded log line. */
const MAX_ERRORS = 20;

export class FieldErrors {
  readonly #errors: string[] = [];
  #more = 0;

  get ok(): boolean {
    return this.#errors.length === 0;
  }

  /** The first problems found, and how many more there were. */
  get errors(): readonly string[] {
    return this.#more === 0 ? this.#errors : [...this.#errors, `... and ${this.#more} more`];
  }

  add(path: string, problem: string): void {
    if (this.#errors.length < MAX_ERRORS) this.#errors.push(`${path}: ${problem}`);
    else this.#more++;
  }

  /** Records a problem with the offending value shown (bounded). */
  invalid(path: string, problem: string, got: unknown): void {
    this.add(path, `${problem}, got ${describeValue(got)}`);
  }

  private missing(value: unknown, path: string, opts: Presence): boolean {
    if (value !== undefined && value !== null) return false;
    if (opts.required) this.add(path, 'is required');
    return true;
  }

  object(value: unknown, path: string, opts: Presence = {}): JsonObject | undefined {
    if (this.missing(value, path, opts)) return undefined;
    if (isJsonObject(value)) return value;
    this.invalid(path, 'must be an object', value);
    return undefined;
  }

  /** A list of at most `opts.max` entries (default {@link OBJECT_LIMITS}`.listEntries`): an absurd count is refused before any entry is read. */
  array(value: unknown, path: string, opts: Presence & { readonly max?: number } = {}): readonly unknown[] | undefined {
    if (this.missing(value, path, opts)) return undefined;
    if (!Array.isArray(value)) {
      this.invalid(path, 'must be a list', value);
      return undefined;
    }
    const max = opts.max ?? OBJECT_LIMITS.listEntries;
    if (value.length <= max) return value;
    this.add(path, `must have at most ${max} entries, got ${value.length}`);
    return undefined;
  }

  string(value: unknown, path: string, opts: Presence = {}): string | undefined {
    if (this.missing(value, path, opts)) return undefined;
    if (typeof value === 'string') return value;
    this.invalid(path, 'must be a string', value);
    return undefined;
  }

  /**
   * Free-form text: a string of at most {@link OBJECT_LIMITS}`.textLength` characters with no control
   * character (a newline would start a line of its own in a kernel tool's input or a log).
   */
  text(value: unknown, path: string, opts: Presence = {}): string | undefined {
    const text = this.string(value, path, opts);
    if (text === undefined) return undefined;
    if (text.length > OBJECT_LIMITS.textLength) {
      this.add(path, `must be at most ${OBJECT_LIMITS.textLength} characters, got ${text.length}`);
      return undefined;
    }
    if (CONTROL_CHARACTER.test(text)) {
      this.invalid(path, 'must not contain control characters', text);
      return undefined;
    }
    return text;
  }

  boolean(value: unknown, path: string): boolean | undefined {
    if (this.missing(value, path, {})) return undefined;
    if (typeof value === 'boolean') return value;
    this.invalid(path, 'must be a boolean', value);
    return undefined;
  }

  int(value: unknown, path: string, range: { min: number; max: number } & Presence): number | undefined {
    if (this.missing(value, path, range)) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      this.invalid(path, 'must be an integer', value);
      return undefined;
    }
    if (value < range.min || value > range.max) {
      this.invalid(path, `must be between ${range.min} and ${range.max}`, value);
      return undefined;
    }
    return value;
  }

  /** One of `allowed`; `fallback` when missing or empty (Kubernetes defaulting). */
  oneOf<T extends string>(value: unknown, path: string, allowed: readonly T[], fallback: T): T | undefined {
    if (value === undefined || value === null || value === '') return fallback;
    const text = this.string(value, path);
    if (text === undefined) return undefined;
    if ((allowed as readonly string[]).includes(text)) return text as T;
    this.invalid(path, `must be one of ${allowed.join(', ')}`, text);
    return undefined;
  }
}
