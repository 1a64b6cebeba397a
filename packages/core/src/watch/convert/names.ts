import { type FieldErrors, fieldPath, type JsonObject } from './fields.js';

/**
 * Kubernetes name rules. Names become parts of keys, chain names and log lines, so an invalid
 * (or 1 MB) name is rejected here rather than carried through the pipeline.
 */

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export type NameRule = 'label' | 'subdomain';

const RULES: Readonly<Record<NameRule, { readonly max: number; readonly pattern: RegExp; readonly what: string }>> = {
  label: { max: 63, pattern: DNS1123_LABEL, what: 'a DNS-1123 label' },
  subdomain: { max: 253, pattern: DNS1123_SUBDOMAIN, what: 'a DNS-1123 subdomain' },
};

/** Why `name` breaks `rule`, or undefined when it is valid. */
export function nameProblem(name: string, rule: NameRule): string | undefined {
  const { max, pattern, what } = RULES[rule];
  // Length first: the pattern is linear, but there is no point scanning a megabyte.
  if (name.length === 0) return `must be ${what}, got an empty string`;
  if (name.length > max) return `must be no more than ${max} characters, got ${name.length}`;
  if (!pattern.test(name))
    return `must be ${what} (lower case alphanumerics, '-'${rule === 'subdomain' ? ", '.'" : ''})`;
  return undefined;
}

/** Reads a required name and checks it against `rule`. */
export function readName(fields: FieldErrors, value: unknown, path: string, rule: NameRule): string | undefined {
  const name = fields.string(value, path, { required: true });
  if (name === undefined) return undefined;
  const problem = nameProblem(name, rule);
  if (problem === undefined) return name;
  fields.add(path, problem);
  return undefined;
}

export interface ObjectMeta {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly deleting: boolean;
}

/** A string map such as labels or annotations; non-string values are errors. */
function readStringMap(fields: FieldErrors, value: unknown, path: string): Readonly<Record<string, string>> {
  const map = fields.object(value, path);
  const out: Record<string, string> = {};
  for (const [key, entry] of Object.entries(map ?? {})) {
    const text = fields.string(entry, fieldPath(path, key));
    if (text !== undefined) out[key] = text;
  }
  return out;
}

/**
 * Reads `metadata`. A namespaced object without a namespace lands in `default`, as `kubectl apply`
 * would put a hand-written manifest there; objects from the API server always carry one.
 */
export function readMetadata(fields: FieldErrors, obj: JsonObject, namespaced: boolean): ObjectMeta | undefined {
  const metadata = fields.object(obj['metadata'], 'metadata', { required: true });
  if (!metadata) return undefined;
  const name = readName(fields, metadata['name'], 'metadata.name', 'subdomain');
  let namespace = '';
  if (namespaced) {
    const given = metadata['namespace'];
    namespace =
      given === undefined || given === null || given === ''
        ? 'default'
        : (readName(fields, given, 'metadata.namespace', 'label') ?? '');
  }
  const labels = readStringMap(fields, metadata['labels'], 'metadata.labels');
  const annotations = readStringMap(fields, metadata['annotations'], 'metadata.annotations');
  const deletionTimestamp = metadata['deletionTimestamp'];
  if (name === undefined) return undefined;
  return {
    name,
    namespace,
    labels,
    annotations,
    deleting: deletionTimestamp !== undefined && deletionTimestamp !== null,
  };
}
