import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * Unknown-field detection for Kubernetes objects. The JSON schemas in kubernetes-models allow
 * additional properties, so a misplaced or misspelt field (`hostNetwork` under a container,
 * `tolerations` under `metadata`) validates and is then silently dropped by the API server. The
 * package's .d.ts interfaces list every field, though: this walks an object along them (what
 * `kubectl --validate=strict` does with the server's openapi).
 */

type FieldType =
  | { readonly kind: 'leaf' }
  | { readonly kind: 'ref'; readonly file: string }
  | { readonly kind: 'array'; readonly of: FieldType }
  | { readonly kind: 'map'; readonly of: FieldType };

type Interface = ReadonlyMap<string, FieldType>;

const LEAF: FieldType = { kind: 'leaf' };
const cache = new Map<string, Interface | undefined>();

/** The .d.ts of `kubernetes-models/<apiVersion>/<Kind>`, or undefined if the package has no such model. */
export function modelTypesFile(nodeModules: string, apiVersion: string, kind: string): string | undefined {
  const f = join(nodeModules, 'kubernetes-models', apiVersion, `${kind}.d.ts`);
  return existsSync(f) ? f : undefined;
}

/** Paths (`spec.template.spec.containers[0].bogus`) of fields the model does not define. */
export function unknownFields(obj: unknown, typesFile: string, nodeModules: string): string[] {
  const out: string[] = [];
  walk(obj, { kind: 'ref', file: typesFile }, '', out, nodeModules);
  return out;
}

function walk(v: unknown, t: FieldType, path: string, out: string[], nm: string): void {
  if (v === null || v === undefined) return;
  switch (t.kind) {
    case 'leaf':
      return;
    case 'array':
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, t.of, `${path}[${i}]`, out, nm));
      return;
    case 'map':
      if (typeof v === 'object')
        for (const [k, x] of Object.entries(v)) walk(x, t.of, `${path}[${JSON.stringify(k)}]`, out, nm);
      return;
    case 'ref': {
      const iface = parseInterface(t.file, nm);
      if (!iface || typeof v !== 'object' || Array.isArray(v)) return;
      for (const [k, x] of Object.entries(v)) {
        const ft = iface.get(k);
        const p = path ? `${path}.${k}` : k;
        if (!ft) out.push(p);
        else walk(x, ft, p, out, nm);
      }
    }
  }
}

/** Fields of the first exported interface of a .d.ts, or undefined for a type alias (a leaf). */
function parseInterface(file: string, nm: string): Interface | undefined {
  if (cache.has(file)) return cache.get(file);
  const text = readFileSync(file, 'utf8').replace(/\/\*\*[\s\S]*?\*\//g, '');
  const imports = new Map<string, string>();
  for (const m of text.matchAll(/^import \{ (\w+) \} from "([^"]+)";$/gm))
    imports.set(m[1]!, resolveImport(m[2]!, file, nm));
  const start = text.search(/^export interface \w+/m);
  let result: Interface | undefined;
  if (start >= 0) {
    const body = text.slice(text.indexOf('{', start) + 1, text.indexOf('\n}', start));
    const fields = new Map<string, FieldType>();
    if (/extends TypeMeta/.test(text.slice(start, text.indexOf('{', start)))) {
      fields.set('apiVersion', LEAF).set('kind', LEAF);
    }
    // Properties sit at four spaces; a map type spans lines: `"labels"?: {\n [key: string]: T;\n };`
    for (const m of body.matchAll(/^ {4}"([^"]+)"\??: ([^\n]*?)(?:;|\{\n\s+\[key: string\]: ([^;]+);\n\s+\};)$/gm)) {
      const [, name, type, mapOf] = m;
      fields.set(name!, mapOf !== undefined ? { kind: 'map', of: typeOf(mapOf, imports) } : typeOf(type!, imports));
    }
    result = fields;
  }
  cache.set(file, result);
  return result;
}

function typeOf(text: string, imports: ReadonlyMap<string, string>): FieldType {
  const t = text.trim();
  const arr = /^Array<(\w+)>$/.exec(t);
  if (arr) return { kind: 'array', of: typeOf(arr[1]!, imports) };
  const file = imports.get(t);
  return file ? { kind: 'ref', file } : LEAF;
}

function resolveImport(spec: string, from: string, nm: string): string {
  const base = spec.startsWith('.') ? resolve(dirname(from), spec) : join(nm, spec);
  return base.replace(/\.js$/, '') + '.d.ts';
}
