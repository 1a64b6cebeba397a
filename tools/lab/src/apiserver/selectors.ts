/**
 * Label and field selectors, the subset informers use: `key`, `!key`, `key=value`, `key==value`,
 * `key!=value`, comma-joined (all terms must hold). Set-based forms (`in`, `notin`) are rejected
 * rather than silently mis-matched, so a test using them fails loudly.
 */

export type SelectorTerm =
  | { readonly op: 'exists'; readonly key: string }
  | { readonly op: 'notExists'; readonly key: string }
  | { readonly op: 'equals'; readonly key: string; readonly value: string }
  | { readonly op: 'notEquals'; readonly key: string; readonly value: string };

export type Selector = readonly SelectorTerm[];

export class SelectorParseError extends Error {
  override readonly name = 'SelectorParseError';
}

export function parseSelector(text: string | null | undefined): Selector {
  if (!text) return [];
  return text
    .split(',')
    .map((raw) => raw.trim())
    .filter((raw) => raw !== '')
    .map(parseTerm);
}

function parseTerm(raw: string): SelectorTerm {
  if (/\s(in|notin)\s*\(/.test(raw)) throw new SelectorParseError(`set-based selector not supported: ${raw}`);
  if (raw.startsWith('!')) return { op: 'notExists', key: checkedKey(raw.slice(1), raw) };
  const notEq = raw.indexOf('!=');
  if (notEq >= 0) {
    return { op: 'notEquals', key: checkedKey(raw.slice(0, notEq), raw), value: raw.slice(notEq + 2).trim() };
  }
  const eq = raw.indexOf('=');
  if (eq >= 0) {
    const value = raw.slice(raw.startsWith('=', eq + 1) ? eq + 2 : eq + 1);
    return { op: 'equals', key: checkedKey(raw.slice(0, eq), raw), value: value.trim() };
  }
  return { op: 'exists', key: checkedKey(raw, raw) };
}

function checkedKey(key: string, term: string): string {
  const trimmed = key.trim();
  if (trimmed === '' || /[\s!=()]/.test(trimmed)) throw new SelectorParseError(`invalid selector term: ${term}`);
  return trimmed;
}

/** Does a set of labels (or of field values) satisfy every term? */
export function matches(selector: Selector, values: Readonly<Record<string, string>>): boolean {
  return selector.every((term) => {
    const has = Object.hasOwn(values, term.key);
    switch (term.op) {
      case 'exists':
        return has;
      case 'notExists':
        return !has;
      case 'equals':
        return has && values[term.key] === term.value;
      case 'notEquals':
        return !has || values[term.key] !== term.value;
    }
  });
}

/** The fields an API server lets every resource be selected on. */
export function objectFields(obj: { readonly metadata: { readonly name: string; readonly namespace?: string } }) {
  return {
    'metadata.name': obj.metadata.name,
    'metadata.namespace': obj.metadata.namespace ?? '',
  } as const satisfies Record<string, string>;
}
