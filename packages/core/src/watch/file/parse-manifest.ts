import type { Document, LineCounter } from 'yaml';
import { yaml } from '../../util/lazy-yaml.js';
import { isJsonObject } from '../convert/fields.js';
import { jsonErrorOffset } from './json-error-offset.js';

/** One object found in a manifest, with where it came from for error messages. */
export interface ManifestObject {
  /** `path:line documents[d].items[i]` (0-based indices; no line for JSON). */
  readonly where: string;
  readonly object: unknown;
  /** apiVersion and kind implied by an enclosing typed list (`ServiceList`), whose items may omit them. */
  readonly implied?: { readonly apiVersion?: string; readonly kind: string };
}

export type ParsedManifest =
  { readonly ok: true; readonly objects: readonly ManifestObject[] } | { readonly ok: false; readonly error: string };

/** `List`, or a typed list like `ServiceList`: anything whose items are the objects. */
function isList(doc: unknown): doc is { kind: string; apiVersion?: unknown; items: readonly unknown[] } {
  return (
    isJsonObject(doc) && typeof doc['kind'] === 'string' && doc['kind'].endsWith('List') && Array.isArray(doc['items'])
  );
}

/** `at` is `path` or `path:line`; `itemAt(i)` the same for the i-th item of a list. */
function expand(doc: unknown, at: string, label: string, itemAt: (i: number) => string): ManifestObject[] {
  if (!isList(doc)) return [{ where: `${at} ${label}`, object: doc }];
  const itemKind = doc.kind === 'List' ? undefined : doc.kind.slice(0, -'List'.length);
  const apiVersion = typeof doc.apiVersion === 'string' ? doc.apiVersion : undefined;
  return doc.items.map((object, i) => ({
    where: `${itemAt(i)} ${label}.items[${i}]`,
    object,
    ...(itemKind ? { implied: { kind: itemKind, ...(apiVersion ? { apiVersion } : {}) } } : {}),
  }));
}

interface LinePos {
  readonly line: number;
  readonly col: number;
}

function linePosAt(text: string, offset: number): LinePos {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, col: before[before.length - 1]!.length + 1 };
}

function parseJson(path: string, text: string): ParsedManifest {
  try {
    return { ok: true, objects: expand(JSON.parse(text), path, 'documents[0]', () => path) };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const offset = jsonErrorOffset(text);
    const at = offset === undefined ? undefined : linePosAt(text, offset);
    return { ok: false, error: at ? `${path}:${at.line}:${at.col}: ${message}` : `${path}: ${message}` };
  }
}

function lineOf(lineCounter: LineCounter, node: unknown): number | undefined {
  const range = (node as { range?: readonly number[] } | null)?.range;
  return range?.[0] === undefined ? undefined : lineCounter.linePos(range[0]).line;
}

function parseYaml(path: string, text: string): ParsedManifest {
  const { isMap, isSeq, LineCounter: Lines, parseAllDocuments } = yaml();
  const lineCounter = new Lines();
  const parsed = parseAllDocuments(text, { lineCounter, prettyErrors: false });
  const documents: readonly Document.Parsed[] = Array.isArray(parsed) ? parsed : [];
  const at = (line: number | undefined) => (line === undefined ? path : `${path}:${line}`);
  const objects: ManifestObject[] = [];
  for (const [d, doc] of documents.entries()) {
    const error = doc.errors[0];
    if (error) {
      const { line, col } = lineCounter.linePos(error.pos[0]);
      return { ok: false, error: `${path}:${line}:${col}: ${error.message}` };
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      const line = lineOf(lineCounter, doc.contents) ?? 0;
      return { ok: false, error: `${path}:${line}:1: ${e instanceof Error ? e.message : String(e)}` };
    }
    if (value === null || value === undefined) continue; // an empty document, e.g. after a trailing `---`
    const items = isMap(doc.contents) ? doc.contents.get('items', true) : undefined;
    const itemAt = (i: number) => at(isSeq(items) ? lineOf(lineCounter, items.items[i]) : undefined);
    objects.push(...expand(value, at(lineOf(lineCounter, doc.contents)), `documents[${d}]`, itemAt));
  }
  return { ok: true, objects };
}

/**
 * Splits a manifest into objects: single objects, `List`/`*List` items, multi-document YAML. JSON
 * files (by extension) go through the much faster `JSON.parse`; everything else is YAML, which is
 * also a superset of JSON. A syntax error fails the whole file, reported as `path:line:column`.
 */
export function parseManifest(path: string, text: string): ParsedManifest {
  return path.endsWith('.json') ? parseJson(path, text) : parseYaml(path, text);
}
