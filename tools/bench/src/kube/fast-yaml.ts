/**
 * A block-style YAML emitter for plain JSON data (objects, arrays, strings, finite numbers, booleans,
 * null), in kubectl's layout. The `yaml` package needs ~11 s for the s10k list; this needs well under
 * one, because it only ever has to handle JSON values. Strings are written plain only when they cannot
 * be read back as anything but that string under YAML 1.1 or 1.2; otherwise they are double-quoted
 * with JSON escaping, which YAML's double-quoted style accepts.
 */

const PLAIN_SAFE = /^[A-Za-z_][A-Za-z0-9_./-]*$/;
/** Words YAML 1.1 or 1.2 would read as booleans or null. */
const RESERVED = /^(?:y|n|yes|no|on|off|true|false|null|nan|inf)$/i;

function scalarString(text: string): string {
  return PLAIN_SAFE.test(text) && !RESERVED.test(text) && !text.endsWith('.') ? text : JSON.stringify(text);
}

function scalar(value: unknown): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return scalarString(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`cannot write ${value} as JSON-compatible YAML`);
      return String(value);
    case 'object':
      if (Array.isArray(value)) return value.length === 0 ? '[]' : undefined;
      return Object.keys(value).length === 0 ? '{}' : undefined;
    default:
      throw new TypeError(`cannot write a ${typeof value} as YAML`);
  }
}

function writeMapping(object: Record<string, unknown>, indent: string, out: string[], firstPrefix: string): void {
  let prefix = firstPrefix;
  for (const key of Object.keys(object)) {
    const value = object[key];
    if (value === undefined) continue;
    const head = `${prefix}${scalarString(key)}:`;
    prefix = indent;
    const inline = scalar(value);
    if (inline !== undefined) out.push(`${head} ${inline}\n`);
    else if (Array.isArray(value)) {
      out.push(`${head}\n`);
      writeSequence(value, indent, out);
    } else {
      out.push(`${head}\n`);
      writeMapping(value as Record<string, unknown>, `${indent}  `, out, `${indent}  `);
    }
  }
}

function writeSequence(items: readonly unknown[], indent: string, out: string[]): void {
  for (const item of items) {
    const inline = scalar(item);
    if (inline !== undefined) out.push(`${indent}- ${inline}\n`);
    else if (Array.isArray(item)) {
      out.push(`${indent}-\n`);
      writeSequence(item, `${indent}  `, out);
    } else writeMapping(item as Record<string, unknown>, `${indent}  `, out, `${indent}- `);
  }
}

export function toYaml(value: unknown): string {
  const inline = scalar(value);
  if (inline !== undefined) return `${inline}\n`;
  const out: string[] = [];
  if (Array.isArray(value)) writeSequence(value, '', out);
  else writeMapping(value as Record<string, unknown>, '', out, '');
  return out.join('');
}
