import { createHash } from 'node:crypto';

/**
 * Canonical JSON: object keys sorted, `undefined` members dropped, so two values with the same
 * content serialise identically whatever order their fields were built in.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** Content hash of a model object: equal content, equal hash. */
export function contentHash(value: unknown): string {
  return createHash('sha1').update(canonicalJson(value)).digest('base64');
}
