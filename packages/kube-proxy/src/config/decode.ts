/**
 * Decoding a KubeProxyConfiguration file (YAML or JSON) as upstream's `loadConfig` does: strictly
 * first; when only strictness fails (unknown or duplicate fields), leniently, with the strict error
 * logged (`Using lenient decoding as strict decoding failed`), so a file written for a newer
 * kube-proxy still loads. Field paths are named as the strict decoder names them
 * (`strict decoding error: unknown field "nftables.syncPeriodd"`); type errors read like
 * encoding/json's and are fatal. Fields kube-proxy removed long ago are skipped with a warning.
 */
import type { Document } from 'yaml';
import { parseGoDuration } from '@kpng/kit';
import { CONFIGURATION_SCHEMA, GO_TYPE, type FieldType, type ObjectType } from './schema.js';
import { API_VERSION, GROUP, KIND, type PartialConfiguration } from './types.js';
import { yaml } from './yaml.js';

export class ConfigDecodeError extends Error {
  override readonly name = 'ConfigDecodeError';
}

export interface Decoded {
  readonly config: PartialConfiguration;
  readonly warnings: readonly string[];
}

export interface DecodeOptions {
  /** Refuse unknown and duplicate fields instead of falling back to lenient decoding. */
  readonly strict?: boolean;
}

export function decodeConfiguration(text: string, options: DecodeOptions = {}): Decoded {
  const strictErrors: string[] = [];
  let document = parseOne(text, true);
  const duplicate = document.errors.find((e) => e.code === 'DUPLICATE_KEY');
  if (duplicate) {
    strictErrors.push(duplicateField(text, duplicate.pos[0]));
    document = parseOne(text, false); // as encoding/json: the last occurrence wins
  }
  const yamlErrors = document.errors;
  if (yamlErrors.length > 0) {
    const first = yamlErrors[0]!;
    throw new ConfigDecodeError(
      `failed to decode: ${first.message.split('\n')[0]} (line ${lineOf(text, first.pos[0])})`,
    );
  }
  const root = toJS(document);
  if (!isPlainObject(root))
    throw new ConfigDecodeError("failed to decode: Object 'Kind' is missing: the file is not a YAML/JSON object");
  checkTypeMeta(root);

  const walker = new Walker();
  const config = walker.object(root, CONFIGURATION_SCHEMA, []);
  if (walker.typeErrors.length > 0) throw new ConfigDecodeError(`failed to decode: ${walker.typeErrors.join('; ')}`);
  strictErrors.push(...walker.unknown.map((f) => `unknown field ${JSON.stringify(f)}`));
  const warnings = [...walker.warnings];
  if (strictErrors.length > 0) {
    const strictError = `strict decoding error: ${strictErrors.join(', ')}`;
    if (options.strict) throw new ConfigDecodeError(strictError);
    warnings.unshift(`Using lenient decoding as strict decoding failed: ${strictError}`);
  }
  delete config['apiVersion'];
  delete config['kind'];
  return { config: config as PartialConfiguration, warnings };
}

/** The document's value; what the yaml library throws while resolving it (an unresolved alias `*a`, an alias bomb) is a decode error. */
function toJS(document: Document.Parsed): unknown {
  try {
    return document.toJS();
  } catch (e) {
    throw new ConfigDecodeError(`failed to decode: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`);
  }
}

function parseOne(text: string, uniqueKeys: boolean): Document.Parsed {
  const documents = yaml().parseAllDocuments(text, { uniqueKeys, prettyErrors: false });
  if (!Array.isArray(documents)) throw new ConfigDecodeError('failed to decode: the file is empty');
  const [document, ...more] = documents;
  if (document === undefined) throw new ConfigDecodeError("Object 'Kind' is missing in the (empty) file");
  if (more.length > 0)
    throw new ConfigDecodeError('failed to decode: expected one KubeProxyConfiguration document, found several');
  return document;
}

function checkTypeMeta(root: Record<string, unknown>): void {
  const { apiVersion, kind } = root;
  if (typeof kind !== 'string' || kind === '') throw new ConfigDecodeError("Object 'Kind' is missing");
  if (typeof apiVersion !== 'string' || apiVersion === '')
    throw new ConfigDecodeError("Object 'apiVersion' is missing");
  if (apiVersion !== API_VERSION || kind !== KIND) {
    const group = apiVersion.split('/')[0];
    const known = group === GROUP ? `only ${API_VERSION} ${KIND} is supported` : `expected apiVersion ${API_VERSION}`;
    throw new ConfigDecodeError(
      `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} (${known})`,
    );
  }
}

class Walker {
  readonly unknown: string[] = [];
  readonly typeErrors: string[] = [];
  readonly warnings: string[] = [];

  object(value: Record<string, unknown>, schema: ObjectType, path: readonly string[]): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      const type = Object.hasOwn(schema.object, key) ? schema.object[key] : undefined;
      const childPath = [...path, key];
      if (type === undefined) {
        this.unknown.push(childPath.join('.'));
        continue;
      }
      if (type === 'removed') {
        this.warnings.push(
          `field ${JSON.stringify(childPath.join('.'))} is no longer used by kube-proxy and is ignored`,
        );
        continue;
      }
      if (child === null || child === undefined) continue; // JSON null: the field stays unset
      const decoded = this.value(child, type, childPath);
      if (decoded !== undefined) out[key] = decoded;
    }
    return out;
  }

  value(value: unknown, type: FieldType, path: readonly string[]): unknown {
    if (typeof type === 'object') {
      if ('object' in type) {
        if (!isPlainObject(value)) return this.mismatch(value, 'struct', path);
        return this.object(value, type, path);
      }
      if (!Array.isArray(value)) return this.mismatch(value, 'slice', path);
      return value.map((item, i) => this.value(item, type.listOf, [...path.slice(0, -1), `${path.at(-1)}[${i}]`]));
    }
    switch (type) {
      case 'string':
        return typeof value === 'string' ? value : this.mismatch(value, type, path);
      case 'bool':
        return typeof value === 'boolean' ? value : this.mismatch(value, type, path);
      case 'float32':
        return typeof value === 'number' ? value : this.mismatch(value, type, path);
      case 'int32':
        return isInteger(value, -(2 ** 31), 2 ** 31 - 1) ? value : this.mismatch(value, type, path);
      case 'uint32':
        return isInteger(value, 0, 2 ** 32 - 1) ? value : this.mismatch(value, type, path);
      case 'duration':
        return this.duration(value, path);
      case 'stringList':
        return Array.isArray(value) && value.every((v) => typeof v === 'string')
          ? value
          : this.mismatch(value, type, path);
      case 'boolMap':
        return isPlainObject(value) && Object.values(value).every((v) => typeof v === 'boolean')
          ? value
          : this.mismatch(value, type, path);
      case 'opaque':
        return value;
      case 'removed':
        return undefined;
    }
  }

  duration(value: unknown, path: readonly string[]): number | undefined {
    // logging.flushFrequency also takes a number of nanoseconds; everything else is a string.
    if (typeof value === 'number' && path.join('.') === 'logging.flushFrequency') return value / 1e6;
    if (typeof value !== 'string') return this.mismatch(value, 'duration', path);
    try {
      return parseGoDuration(value);
    } catch (e) {
      this.typeErrors.push(`KubeProxyConfiguration.${path.join('.')}: ${(e as Error).message}`);
      return undefined;
    }
  }

  mismatch(value: unknown, type: string, path: readonly string[]): undefined {
    const goType = GO_TYPE[type] ?? type;
    this.typeErrors.push(
      `cannot unmarshal ${jsonKind(value)} into Go struct field KubeProxyConfiguration.${path.join('.')} of type ${goType}`,
    );
    return undefined;
  }
}

/** `duplicate field "syncPeriod" (line 4)`: the yaml library only points at the key. */
function duplicateField(text: string, offset: number): string {
  const key = /^("[^"]*"|'[^']*'|[^:\s,{}]+)/.exec(text.slice(offset))?.[1]?.replace(/^["']|["']$/g, '') ?? '?';
  return `duplicate field ${JSON.stringify(key)} (line ${lineOf(text, offset)})`;
}

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isInteger(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'number') return `number ${value}`;
  return typeof value === 'boolean' ? 'bool' : 'string';
}
