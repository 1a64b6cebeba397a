/**
 * A block-style YAML emitter for plain JSON data (objects, arrays, strings, finite numbers, booleans,
 * null), in kubectl's layout. The `yaml` package is many times slower on the s10k list (both
 * measured: tools/bench/README.md); this needs a few times `JSON.stringify`, because it only ever has to handle JSON values. Strings are written plain
 * only when they cannot be read back as anything but that string under YAML 1.1 or 1.2; otherwise
 * they are double-quoted with JSON escaping, which YAML's double-quoted style accepts.
 */

const PLAIN_SAFE = /^[A-Za-z_][A-Za-z0-9_./-]*$/;
/** Words YAML 1.1 or 1.2 would read as booleans or null. */
const RESERVED = /^(?:y|n|yes|no|on|off|true|false|null|nan|inf)$/i;
/** Strings JSON.stringify would quote without escaping anything. */
const NO_ESCAPES = /^[\w .,:/@+=-]*$/;

function formatString(text: string): string {
  if (PLAIN_SAFE.test(text) && !RESERVED.test(text) && !text.endsWith('.')) return text;
  return NO_ESCAPES.test(text) ? `"${text}"` : JSON.stringify(text);
}

/** Keys repeat endlessly (`name`, `addresses`...): format each once. */
const keyCache = new Map<string, string>();
function formatKey(key: string): string {
  let formatted = keyCache.get(key);
  if (formatted === undefined) {
    formatted = `${formatString(key)}:`;
    if (keyCache.size < 10_000) keyCache.set(key, formatted);
  }
  return formatted;
}

function scalar(value: unknown): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return formatString(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`cannot write ${value} as JSON-compatible YAML`);
      return String(value);
    case 'object':
      if (Array.isArray(value)) return value.length === 0 ? '[]' : undefined;
      for (const key in value) if (Object.hasOwn(value, key)) return undefined;
      return '{}';
    default:
      throw new TypeError(`cannot write a ${typeof value} as YAML`);
  }
}

function writeMapping(object: Record<string, unknown>, indent: string, firstPrefix: string): string {
  let out = '';
  let prefix = firstPrefix;
  for (const key of Object.keys(object)) {
    const value = object[key];
    if (value === undefined) continue;
    const head = prefix + formatKey(key);
    prefix = indent;
    const inline = scalar(value);
    if (inline !== undefined) out += `${head} ${inline}\n`;
    else if (Array.isArray(value)) out += `${head}\n${writeSequence(value, indent)}`;
    else out += `${head}\n${writeMapping(value as Record<string, unknown>, `${indent}  `, `${indent}  `)}`;
  }
  return out;
}

function writeSequence(items: readonly unknown[], indent: string): string {
  let out = '';
  for (const item of items) {
    const inline = scalar(item);
    if (inline !== undefined) out += `${indent}- ${inline}\n`;
    else if (Array.isArray(item)) out += `${indent}-\n${writeSequence(item, `${indent}  `)}`;
    else out += writeMapping(item as Record<string, unknown>, `${indent}  `, `${indent}- `);
  }
  return out;
}

export function toYaml(value: unknown): string {
  const inline = scalar(value);
  if (inline !== undefined) return `${inline}\n`;
  return Array.isArray(value) ? writeSequence(value, '') : writeMapping(value as Record<string, unknown>, '', '');
}
